import Foundation
import GitFormat
import Testing
import TestSupport

/// A zlib stream inflates to exactly the size declared for it: one that ends early or goes on
/// past it is refused, and bytes after its end are left for the caller.
@Suite struct ZlibTests {
    func inflate(_ stream: [UInt8], size: Int) throws -> (bytes: [UInt8], consumed: Int) {
        try stream.withUnsafeBytes { try Zlib.inflate($0, size: size) }
    }

    @Test func aStreamInflatesToItsSizeAndSaysWhereItEnds() throws {
        let stream = GitBytes.zlibStored(Array("hello".utf8))
        let inflated = try inflate(stream + Array("next entry".utf8), size: 5)
        #expect(inflated.bytes == Array("hello".utf8) && inflated.consumed == stream.count)
    }

    @Test func aStreamLongerThanItsSizeIsRefused() throws {
        let error = try #require(throws: FormatError.self) { try inflate(GitBytes.zlibStored(Array("hello, and more".utf8)), size: 5) }
        #expect(error.message.contains("does not inflate to the 5 bytes"), "\(error)")
    }

    @Test func aStreamShorterThanItsSizeOrCutIsRefused() throws {
        let stream = GitBytes.zlibStored(Array("hello".utf8))
        #expect(throws: FormatError.self) { try inflate(stream, size: 6) }
        #expect(throws: FormatError.self) { try inflate(Array(stream.dropLast(3)), size: 5) }
        #expect(throws: FormatError.self) { try inflate([0x78, 0x01, 0xFF, 0xFF], size: 5) }
    }
}
