import Foundation
@testable import Git
@testable import GitFormat
import Testing

/// A pack's checksum is SHA-1 computed with the processor's SHA extensions when it has them:
/// it must equal SHA-1 computed another way for every length, padding included.
@Suite struct ChecksumTests {
    @Test func packChecksumsAreSHA1() throws {
        #expect(try hex(PackWriter.sha1(Array("abc".utf8))) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(try hex(PackWriter.sha1([])) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        var generator = SystemRandomNumberGenerator()
        let lengths = Array(0...200) + [1_000, 4_095, 4_096, 65_536 + 17, 1 << 20]
        for length in lengths {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(try PackWriter.sha1(bytes) == SHA1.digest(bytes), "\(length) bytes")
        }
    }

    private func hex(_ digest: [UInt8]) -> String {
        digest.map { String(format: "%02x", $0) }.joined()
    }
}
