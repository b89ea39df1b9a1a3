/// What a client says to git's upload-pack to fetch one commit in one round (git's
/// `pack-protocol.txt`, protocol v0 and v1): the commit wanted, the commits this side has, and
/// `done` at once, so that the server sends its pack after one request, over smart http as over
/// ssh or `git://`.
package enum UploadPack {
    /// The request for `want` from a side that has `haves`, asking for `capabilities`: `want ID
    /// CAPABILITIES` as one pkt-line, a flush, one `have ID` line for each of `haves`, then
    /// `done`. Without multi_ack among the capabilities, the server answers with `ACK` lines for
    /// haves it also holds, or `NAK` when it holds none, then the pack (``UploadPackAnswer``).
    /// - Throws: ``FormatError`` when a capability is empty or holds a space, a NUL or a newline.
    package static func request(want: OID, haves: [OID], capabilities: [String]) throws(FormatError) -> [UInt8] {
        for capability in capabilities where capability.isEmpty || capability.utf8.contains(where: { $0 == 0x20 || $0 == 0 || $0 == 0x0A }) {
            throw FormatError(.uploadPack, "\(capability.debugDescription) is not a capability")
        }
        let first = capabilities.isEmpty ? "want \(want.hex)\n" : "want \(want.hex) \(capabilities.joined(separator: " "))\n"
        var bytes = try PacketLine.text(first).encoded() + PacketLine.flush.encoded()
        for have in haves { bytes += try PacketLine.text("have \(have.hex)\n").encoded() }
        return bytes + (try PacketLine.text("done\n").encoded())
    }
}

/// Reads upload-pack's answer to ``UploadPack/request(want:haves:capabilities:)`` as it arrives,
/// a request that asked for side-band or side-band-64k: the acknowledgements (an `ACK ID` line
/// for commits the server also holds, or `NAK` when it holds none), then the pack in side-band
/// packets (band 1 the pack, band 2 progress, band 3 the server's error) up to a flush. The
/// server's `ERR` line, in place of an acknowledgement, is its refusal.
///
/// Each packet is checked by ``PacketLineReader`` before anything is taken from it; the pack's
/// bytes are handed on as they are, for an indexer to check.
package struct UploadPackAnswer: Sendable {
    /// One part of the answer.
    package enum Part: Equatable, Sendable {
        /// An acknowledgement: a commit the server also holds (`ACK`), or nil when it holds none
        /// of those named (`NAK`).
        case acknowledged(OID?)
        /// Bytes of the pack, in order.
        case pack([UInt8])
        /// A progress message of the server's (band 2).
        case progress([UInt8])
        /// The server's refusal (`ERR`, or band 3), as it says it.
        case refusal(String)
        /// The flush that ends the answer: nothing follows.
        case end
    }

    private enum State {
        case acknowledgements, pack, ended, refused
    }

    private var reader = PacketLineReader()
    private var state = State.acknowledgements

    /// A reader of an answer not received yet.
    package init() {}

    /// Adds bytes received after those given so far.
    package mutating func append<Bytes: Collection<UInt8>>(_ bytes: Bytes) {
        reader.append(bytes)
    }

    /// The bytes received and not read yet.
    package var unread: Int { reader.unread }

    /// True once the answer's closing flush or the server's refusal was read.
    package var isComplete: Bool { state == .ended || state == .refused }

    /// The next part; nil when the bytes received end before it (append more), and after
    /// ``Part/end`` or a ``Part/refusal(_:)``.
    /// - Throws: ``FormatError`` for malformed pkt-lines, a line among the acknowledgements that
    ///   is neither `ACK` and an id, `NAK` nor `ERR`, a special packet before the end, a
    ///   side-band packet with no band or another band than 1, 2 or 3, or bytes after the end.
    package mutating func next() throws(FormatError) -> Part? {
        switch state {
        case .refused:
            return nil
        case .ended:
            guard reader.unread == 0 else { throw FormatError(.uploadPack, "\(reader.unread) bytes follow the end of the answer") }
            return nil
        case .acknowledgements, .pack:
            break
        }
        guard let packet = try reader.next() else { return nil }
        guard case .data(let bytes) = packet else {
            if packet == .flush, state == .pack {
                state = .ended
                return .end
            }
            throw FormatError(.uploadPack, "it holds a \(packet) packet before its pack ends")
        }
        guard let band = bytes.first else { throw FormatError(.uploadPack, "it holds an empty packet") }
        if state == .acknowledgements, band > 3 {
            let line = packet.line ?? []
            if line.starts(with: "ERR ".utf8) {
                state = .refused
                return .refusal(String(decoding: line.dropFirst(4), as: UTF8.self))
            }
            if line.elementsEqual("NAK".utf8) {
                state = .pack
                return .acknowledged(nil)
            }
            guard line.count == 44, line.starts(with: "ACK ".utf8), let id = OID(hex: String(decoding: line.dropFirst(4), as: UTF8.self)) else {
                throw FormatError(.uploadPack, "a line before the pack is neither ACK and an id, NAK nor ERR")
            }
            return .acknowledged(id)
        }
        state = .pack
        switch band {
        case 1: return .pack(Array(bytes.dropFirst()))
        case 2: return .progress(Array(bytes.dropFirst()))
        case 3:
            state = .refused
            return .refusal(String(decoding: bytes.dropFirst(), as: UTF8.self))
        default: throw FormatError(.uploadPack, "a side-band packet has band \(band), not 1, 2 or 3")
        }
    }
}
