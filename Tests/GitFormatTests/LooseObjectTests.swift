import Foundation
import GitFormat
import Testing
import TestSupport

/// A loose object's declared size is checked against the limit before anything is allocated,
/// and its data must inflate to exactly that size.
@Suite struct LooseObjectTests {
    func read(_ file: [UInt8], largest: Int) throws -> (type: ObjectType, bytes: [UInt8]) {
        try file.withUnsafeBytes { try LooseObject.read($0, largest: largest) }
    }

    @Test func aLooseObjectIsRead() throws {
        let object = try read(GitBytes.zlibStored(Array("blob 5\0hello".utf8)), largest: 5)
        #expect(object.type == .blob && object.bytes == Array("hello".utf8))
    }

    /// A file of a few bytes whose header claims 3 GiB, with a limit of 1 MiB: refused as over
    /// the limit, from the header alone (the data would not inflate to that size either; the
    /// error says which check refused it).
    @Test func anObjectClaiming3GiBIsRefusedBeforeAnythingIsAllocated() throws {
        let file = GitBytes.zlibStored(Array("blob 3221225472\0hello".utf8))
        let error = try #require(throws: FormatError.self) { try read(file, largest: 1 << 20) }
        #expect(error.isOverLimit && error.message.contains("claims 3221225472 bytes, over the limit of 1048576"), "\(error)")
    }

    /// An object whose data is really over the limit is refused too, not read whole.
    @Test func anObjectOverTheLimitIsRefused() throws {
        let data = Array("blob 2097152\0".utf8) + Array(repeating: 7, count: 2 << 20)
        let error = try #require(throws: FormatError.self) { try read(GitBytes.zlibStored(data), largest: 1 << 20) }
        #expect(error.isOverLimit, "\(error)")
        #expect(try read(GitBytes.zlibStored(data), largest: 2 << 20).bytes.count == 2 << 20)
    }

    @Test func anObjectThatIsNotTheSizeItClaimsIsRefused() throws {
        for text in ["blob 6\0hello", "blob 4\0hello", "blob 05\0hello", "blob\0hello", "bolb 5\0hello"] {
            let error = try #require(throws: FormatError.self, "\(text.debugDescription)") { try read(GitBytes.zlibStored(Array(text.utf8)), largest: 100) }
            #expect(!error.isOverLimit, "\(text.debugDescription): \(error)")
        }
    }
}
