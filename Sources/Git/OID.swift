internal import CGit2

/// A git object id (SHA-1), a value type.
public struct OID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The 20 raw bytes of the id.
    public let bytes: [UInt8]

    init(_ oid: git_oid) {
        var copy = oid
        bytes = withUnsafeBytes(of: &copy.id) { Array($0) }
    }

    /// An id from its 20 raw bytes; nil for any other count.
    public init?<Bytes: Collection<UInt8>>(bytes: Bytes) {
        guard bytes.count == 20 else { return nil }
        self.bytes = Array(bytes)
    }

    /// Parses a full 40-digit hexadecimal id; nil when the text is not one.
    public init?(hex: String) {
        guard hex.utf8.count == 40 else { return nil }
        var result: [UInt8] = []
        result.reserveCapacity(20)
        var iterator = hex.utf8.makeIterator()
        while let high = iterator.next(), let low = iterator.next() {
            guard let h = OID.nibble(high), let l = OID.nibble(low) else { return nil }
            result.append(h << 4 | l)
        }
        bytes = result
    }

    /// The 40-digit lowercase hexadecimal form.
    public var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(40)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The first seven hexadecimal digits, as git abbreviates.
    public var short: String { String(hex.prefix(7)) }

    public var description: String { hex }

    public static func < (lhs: OID, rhs: OID) -> Bool { lhs.bytes.lexicographicallyPrecedes(rhs.bytes) }

    /// The 20 bytes fed to the hasher at once (an array's hashing feeds its count and each
    /// byte on its own: ids are keys of most of Concord's sets and dictionaries).
    public func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    var raw: git_oid {
        var oid = git_oid()
        withUnsafeMutableBytes(of: &oid.id) { buffer in
            for (index, byte) in bytes.enumerated() { buffer[index] = byte }
        }
        return oid
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
