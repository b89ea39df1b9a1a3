/// JSON written byte by byte, for an answer whose size makes `JSONEncoder` the most of its time
/// (the documents list of a container of 100,000 documents). Strings are escaped as RFC 8259
/// asks: `"`, `\` and every control character below U+0020; the rest is copied as the string's
/// UTF-8, which a Swift string always holds valid.
struct JSONText {
    private(set) var bytes: [UInt8] = []

    init(reservingCapacity capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    /// Punctuation and keys, written as they are.
    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            var start = 0
            for (index, byte) in utf8.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                bytes.append(contentsOf: utf8[start..<index])
                escape(byte)
                start = index + 1
            }
            bytes.append(contentsOf: utf8[start...])
        }
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func number(_ value: Int) {
        bytes.append(contentsOf: String(value).utf8)
    }

    mutating func bool(_ value: Bool) {
        value ? raw("true") : raw("false")
    }

    private mutating func escape(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): raw(#"\""#)
        case UInt8(ascii: "\\"): raw(#"\\"#)
        case UInt8(ascii: "\n"): raw(#"\n"#)
        case UInt8(ascii: "\r"): raw(#"\r"#)
        case UInt8(ascii: "\t"): raw(#"\t"#)
        default:
            // A control character: `\u00` and its two hexadecimal digits, the first 0 or 1.
            let low = byte & 0xF
            raw(#"\u00"#)
            bytes.append(UInt8(ascii: "0") + (byte >> 4))
            bytes.append(low < 10 ? UInt8(ascii: "0") + low : UInt8(ascii: "a") + (low - 10))
        }
    }
}
