import Foundation
import Git
import Testing

@testable import Concord

/// What a save reads from the work tree: only a regular file becomes a file's version, whatever
/// the caller found at the path a moment before (the scan of `save --all` passes on what it saw,
/// and the path may have changed since).
@Suite struct WorkTreeEntryTests {
    @Test func aFolderWhereTheScanSawAFileIsRefusedAndNothingIsStored() throws {
        let fixture = try Fixture(devices: 1)
        let root = fixture[1].root
        try FileManager.default.createDirectory(atPath: "\(root)/notes.txt", withIntermediateDirectories: true)
        let repository = try Repository.open(at: root)
        let objectsBefore = try FileManager.default.subpathsOfDirectory(atPath: "\(root)/.git/objects").sorted()
        let limits = ArrivalCheck.Limits(objectSize: 1 << 20, totalSize: 1 << 30)
        #expect {
            try WorkTree(root: root).entry(
                of: DocumentPath("notes.txt"), isPackage: false, storingIn: repository, ignoring: IgnoreRules(container: nil, device: nil),
                limits: limits, kind: .file)
        } throws: { error in
            "\(error)".contains("notes.txt") && "\(error)".contains("not a regular file")
        }
        #expect(try FileManager.default.subpathsOfDirectory(atPath: "\(root)/.git/objects").sorted() == objectsBefore)
    }
}
