/// One packet of git's pkt-line framing, which every smart protocol (upload-pack, receive-pack,
/// over ssh, `git://` or http) speaks: four hexadecimal digits giving the packet's length, their
/// own four included, then the data; the lengths 0, 1 and 2 are the special packets.
package enum PacketLine: Equatable, Sendable {
    /// A packet of data (`0004` is an empty one, as git reads it).
    case data([UInt8])
    /// `0000`: the end of a list or message.
    case flush
    /// `0001`: the end of a section (protocol v2).
    case delimiter
    /// `0002`: the end of a stateless response (protocol v2).
    case responseEnd

    /// The longest packet, its four digits of length included (git's `LARGE_PACKET_MAX`).
    package static let maximumLength = 65520

    /// A data packet holding `text`'s UTF-8 bytes.
    package static func text(_ text: String) -> PacketLine { .data(Array(text.utf8)) }

    /// The packet as it travels: its length in four lowercase hexadecimal digits, then its data.
    /// - Throws: ``FormatError`` when the data does not fit in one packet.
    package func encoded() throws(FormatError) -> [UInt8] {
        let data: [UInt8]
        switch self {
        case .flush: return Array("0000".utf8)
        case .delimiter: return Array("0001".utf8)
        case .responseEnd: return Array("0002".utf8)
        case .data(let bytes): data = bytes
        }
        guard data.count <= Self.maximumLength - 4 else {
            throw FormatError(.packetLine, "\(data.count) bytes do not fit in one packet (at most \(Self.maximumLength - 4))")
        }
        let digits = Array("0123456789abcdef".utf8)
        let length = data.count + 4
        return (0..<4).map { digits[(length >> (12 - 4 * $0)) & 0xF] } + data
    }

    /// The data with one trailing newline removed, as git reads a text packet; nil for a special
    /// packet.
    package var line: ArraySlice<UInt8>? {
        guard case .data(let bytes) = self else { return nil }
        return bytes.last == 0x0A ? bytes.dropLast() : bytes[...]
    }
}

/// Reads pkt-lines from bytes that arrive in pieces: ``append(_:)`` what was received, then
/// ``next()`` until it says the bytes end before the next packet.
///
/// Each packet is checked before anything is taken from it, as git's `packet_length` and
/// libgit2's `git_pkt_parse_line` do: four hexadecimal digits, a length of 4 or more (or one of
/// the special 0, 1 and 2), at most ``PacketLine/maximumLength``. Nothing is read past the
/// bytes received: a packet whose length runs past them waits for more.
package struct PacketLineReader: Sendable {
    private var buffer: [UInt8] = []
    private var start = 0

    /// A reader of `bytes`, to which more may be appended.
    package init(_ bytes: [UInt8] = []) {
        buffer = bytes
    }

    /// The bytes received that are not part of a packet read yet.
    package var unread: Int { buffer.count - start }

    /// Adds bytes received after those given so far.
    package mutating func append<Bytes: Collection<UInt8>>(_ bytes: Bytes) {
        if start > 0 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next packet; nil when the bytes received end before it does (append more).
    /// - Throws: ``FormatError`` when its length is not four hexadecimal digits, is 3, or is over
    ///   ``PacketLine/maximumLength``.
    package mutating func next() throws(FormatError) -> PacketLine? {
        guard unread >= 4 else { return nil }
        var length = 0
        for digit in buffer[start..<(start + 4)] {
            guard let value = Self.hexValue(digit) else {
                let shown = buffer[start..<(start + 4)].map { (0x20..<0x7F).contains($0) ? Character(Unicode.Scalar($0)) : "." }
                throw FormatError(.packetLine, "its length \"\(String(shown))\" is not four hexadecimal digits")
            }
            length = length << 4 | value
        }
        switch length {
        case 0, 1, 2:
            start += 4
            return [.flush, .delimiter, .responseEnd][length]
        case 3:
            throw FormatError(.packetLine, "a length of 3 is shorter than the length itself")
        case (PacketLine.maximumLength + 1)...:
            throw FormatError(.packetLine, "a length of \(length) is over the limit of \(PacketLine.maximumLength)")
        default:
            guard unread >= length else { return nil }
            let data = Array(buffer[(start + 4)..<(start + length)])
            start += length
            return .data(data)
        }
    }

    private static func hexValue(_ digit: UInt8) -> Int? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(digit - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(digit - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(digit - UInt8(ascii: "A")) + 10
        default: nil
        }
    }
}
