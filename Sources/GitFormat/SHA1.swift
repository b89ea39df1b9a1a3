internal import CSHA1

/// SHA-1, the one implementation Concord uses outside libgit2: mbedTLS's, with the processor's
/// SHA extensions when it has them (the checksum at the end of a pack and of its index over a
/// folder of 100,000 documents is 4 MB a write). For the checksums git's formats end with, and
/// the HMAC of OpenSSH's hashed host names; not for an object's id computed from someone else's
/// bytes, which needs collision detection (libgit2's, through the `Git` wrapper).
package enum SHA1 {
    /// The 20-byte digest of `bytes`.
    package static func digest(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 20)
        // mbedTLS fails only on a bad context, which this call never has.
        _ = concord_sha1(bytes.baseAddress, bytes.count, &digest)
        return digest
    }

    /// The 20-byte digest of `bytes`.
    package static func digest(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBytes { digest($0) }
    }

    /// SHA-1 over bytes given in pieces.
    package final class Hasher {
        private let stream: UnsafeMutablePointer<concord_sha1_stream>

        /// A hasher that has seen nothing.
        package init() {
            stream = .allocate(capacity: 1)
            concord_sha1_stream_start(stream)
        }

        deinit { stream.deallocate() }

        /// Hashes `bytes` after what came before.
        package func update(_ bytes: UnsafeRawBufferPointer) {
            concord_sha1_stream_update(stream, bytes.baseAddress, bytes.count)
        }

        /// The digest of everything given; the hasher is spent after.
        package func finish() -> [UInt8] {
            var digest = [UInt8](repeating: 0, count: 20)
            concord_sha1_stream_finish(stream, &digest)
            return digest
        }
    }

    /// The id git gives an object of `type` holding `bytes`: the SHA-1 of `<type> <size>\0` and
    /// the bytes. (For bytes this device made; someone else's are hashed with collision
    /// detection, by libgit2.)
    package static func id(of type: ObjectType, _ bytes: UnsafeRawBufferPointer) -> OID {
        let hasher = Hasher()
        Array("\(type.name) \(bytes.count)\0".utf8).withUnsafeBytes { hasher.update($0) }
        hasher.update(bytes)
        return hasher.finish().withUnsafeBytes { OID(unchecked: $0) }
    }

    /// HMAC-SHA-1 of `message` under `key` (RFC 2104).
    package static func hmac(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var block = key.count > 64 ? digest(key) : key
        block += [UInt8](repeating: 0, count: 64 - block.count)
        let inner = digest(block.map { $0 ^ 0x36 } + message)
        return digest(block.map { $0 ^ 0x5C } + inner)
    }
}
