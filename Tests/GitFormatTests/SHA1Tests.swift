import CSHA1
import Foundation
import Testing

@testable import GitFormat

/// SHA-1 is computed with the processor's SHA extensions when it has them: it must equal
/// mbedTLS's portable SHA-1 for every length, padding included, and the standard vectors.
@Suite struct SHA1Tests {
    @Test func theDigestIsSHA1AtEveryLength() {
        #expect(hex(SHA1.digest(Array("abc".utf8))) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(hex(SHA1.digest([])) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        var generator = SystemRandomNumberGenerator()
        for length in Array(0...200) + [1_000, 4_095, 4_096, 65_536 + 17, 1 << 20] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            var portable = [UInt8](repeating: 0, count: 20)
            _ = concord_sha1_portable(bytes, bytes.count, &portable)
            #expect(SHA1.digest(bytes) == portable, "\(length) bytes")
        }
    }

    /// Given in pieces of any size, the digest is the same, and an object's id is git's.
    @Test func piecesHashAsTheWhole() {
        var generator = SystemRandomNumberGenerator()
        for length in [0, 1, 63, 64, 65, 127, 128, 1_000, 70_001] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let hasher = SHA1.Hasher()
            var at = 0
            while at < bytes.count {
                let piece = min(Int.random(in: 1...100, using: &generator), bytes.count - at)
                bytes.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[at..<(at + piece)])) }
                at += piece
            }
            #expect(hasher.finish() == SHA1.digest(bytes), "\(length) bytes")
        }
        // `printf hello | git hash-object --stdin`
        #expect(Array("hello".utf8).withUnsafeBytes { SHA1.id(of: .blob, $0) }.hex == "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0")
    }

    /// RFC 2202's first and sixth test cases (a key longer than a block is hashed first).
    @Test func hmacMatchesTheRFC() {
        #expect(hex(SHA1.hmac(key: [UInt8](repeating: 0x0B, count: 20), message: Array("Hi There".utf8))) == "b617318655057264e28bc0b6fb378c8ef146be00")
        let long = [UInt8](repeating: 0xAA, count: 80)
        #expect(hex(SHA1.hmac(key: long, message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8))) == "aa4ae5e15272d00e95705637ce8a3b55ed402112")
    }

    private func hex(_ digest: [UInt8]) -> String {
        digest.map { String(format: "%02x", $0) }.joined()
    }
}
