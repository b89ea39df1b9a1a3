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

    /// A temporary file is never opened over one already there: when the name drawn is taken
    /// (another writer's, or two drawn alike), another is drawn, as mkstemp(3) does. Seen
    /// failing without the retry ("cannot write: File exists", as a clone of 100,000 documents
    /// once failed).
    @Test func aTemporaryNameAlreadyTakenIsNeverOpenedAndAnotherIsDrawn() throws {
        struct Drawn: RandomNumberGenerator {
            var values: [UInt64]
            mutating func next() -> UInt64 { values.removeFirst() }
        }
        let fixture = try Fixture(devices: 1)
        let workTree = WorkTree(root: fixture[1].root)
        var probe = Drawn(values: [7, 8])
        let taken = "\(WorkTree.temporaryPrefix)\(getpid())-\(UInt64.random(in: 0...UInt64.max, using: &probe))"
        let other = "\(WorkTree.temporaryPrefix)\(getpid())-\(UInt64.random(in: 0...UInt64.max, using: &probe))"
        try Data("another writer's\n".utf8).write(to: URL(fileURLWithPath: "\(fixture[1].root)/\(taken)"))
        var names = Drawn(values: [7, 8])
        let parent = try workTree.open("", creating: false)
        let (name, descriptor) = try workTree.createTemporary(in: parent, executable: false, for: "note.txt", names: &names)
        close(descriptor)
        #expect(name == other)
        #expect(try String(contentsOfFile: "\(fixture[1].root)/\(taken)", encoding: .utf8) == "another writer's\n")
        #expect(FileManager.default.fileExists(atPath: "\(fixture[1].root)/\(other)"))
    }
}
