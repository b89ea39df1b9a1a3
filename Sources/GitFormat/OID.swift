/// A git object id (SHA-1), a value type. Its 20 bytes are held inline, as three words: an id
/// is copied, compared and hashed without an allocation or a reference count (ids are the keys
/// of most of Concord's sets and dictionaries).
public struct OID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The bytes in order: 0–7, 8–15 and 16–19, each word loaded in the machine's byte order.
    private let words: (UInt64, UInt64, UInt32)

    /// An id from its 20 raw bytes; nil for any other count.
    public init?<Bytes: Collection<UInt8>>(bytes: Bytes) {
        guard bytes.count == 20 else { return nil }
        if let id = bytes.withContiguousStorageIfAvailable({ OID(unchecked: UnsafeRawBufferPointer($0)) }) {
            self = id
        } else {
            self = Array(bytes).withUnsafeBytes { OID(unchecked: $0) }
        }
    }

    /// An id from the first 20 bytes of `raw`, which must hold at least 20.
    package init(unchecked raw: UnsafeRawBufferPointer) {
        words = (
            raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self), raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
            raw.loadUnaligned(fromByteOffset: 16, as: UInt32.self)
        )
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
        self = result.withUnsafeBytes { OID(unchecked: $0) }
    }

    /// The 20 raw bytes of the id.
    public var bytes: [UInt8] { withUnsafeBytes { Array($0) } }

    /// Calls `body` with the 20 raw bytes of the id, without copying them.
    public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try Swift.withUnsafeBytes(of: words) { try body(UnsafeRawBufferPointer(rebasing: $0.prefix(20))) }
    }

    /// The 40-digit lowercase hexadecimal form.
    public var hex: String {
        String(unsafeUninitializedCapacity: 40) { out in
            withUnsafeBytes { bytes in
                for (index, byte) in bytes.enumerated() {
                    out[2 * index] = Self.digit(byte >> 4)
                    out[2 * index + 1] = Self.digit(byte & 0xF)
                }
                return 2 * bytes.count
            }
        }
    }

    /// The lowercase hexadecimal digit of a value from 0 to 15.
    private static func digit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") - 10 + value
    }

    /// The first seven hexadecimal digits, as git abbreviates.
    public var short: String { String(hex.prefix(7)) }

    public var description: String { hex }

    /// True when the two ids have the same 20 bytes.
    public static func == (lhs: OID, rhs: OID) -> Bool {
        lhs.words.0 == rhs.words.0 && lhs.words.1 == rhs.words.1 && lhs.words.2 == rhs.words.2
    }

    /// git's order: byte by byte, which is the order of the words read as big-endian numbers.
    public static func < (lhs: OID, rhs: OID) -> Bool {
        let (l, r) = (
            (UInt64(bigEndian: lhs.words.0), UInt64(bigEndian: lhs.words.1), UInt32(bigEndian: lhs.words.2)),
            (UInt64(bigEndian: rhs.words.0), UInt64(bigEndian: rhs.words.1), UInt32(bigEndian: rhs.words.2))
        )
        if l.0 != r.0 { return l.0 < r.0 }
        if l.1 != r.1 { return l.1 < r.1 }
        return l.2 < r.2
    }

    /// Feeds the three words to the hasher (an array's hashing fed its count and each byte).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
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
