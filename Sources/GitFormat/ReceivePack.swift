/// What a client says to git's receive-pack (git's `pack-protocol.txt`): one command that
/// moves a reference, sent after the server's advertisement and before the pack.
package enum ReceivePack {
    /// The request that moves `reference` from `old` (nil: the reference does not exist yet) to
    /// `new`, asking for `capabilities`: the command as one pkt-line
    /// (`old SP new SP reference NUL capabilities LF`), then a flush.
    /// - Throws: ``FormatError`` when `reference` is not a valid reference name, a capability is
    ///   empty or holds a space, a NUL or a newline, or the command does not fit in one packet.
    package static func updateRequest(reference: String, from old: OID?, to new: OID, capabilities: [String]) throws(FormatError) -> [UInt8] {
        guard ReferenceName.isValid(reference.utf8) else { throw FormatError(.receivePack, "\(reference.debugDescription) is not a reference name") }
        for capability in capabilities where capability.isEmpty || capability.utf8.contains(where: { $0 == 0x20 || $0 == 0 || $0 == 0x0A }) {
            throw FormatError(.receivePack, "\(capability.debugDescription) is not a capability")
        }
        let zero = String(repeating: "0", count: 40)
        let command = "\(old?.hex ?? zero) \(new.hex) \(reference)\0\(capabilities.joined(separator: " "))\n"
        return try PacketLine.text(command).encoded() + PacketLine.flush.encoded()
    }
}

/// receive-pack's `report-status`: whether the server stored the pack, then one status for each
/// reference the push asked to move (`unpack ok` or `unpack REASON`, then `ok REF` or
/// `ng REF REASON` lines, then a flush).
package struct PushReport: Equatable, Sendable {
    /// What the server did with one reference.
    package struct Status: Equatable, Sendable {
        /// The reference's full name.
        package let reference: String
        /// The server's reason for not moving it; nil when it moved it (`ok`).
        package let refusal: String?

        /// The status of `reference`: moved when `refusal` is nil.
        package init(reference: String, refusal: String?) {
            self.reference = reference
            self.refusal = refusal
        }
    }

    /// Why the server could not store the pack; nil when it did (`unpack ok`).
    package let unpackFailure: String?
    /// The statuses in the order the server sent them (one or more).
    package let statuses: [Status]

    /// The report the packets before its closing flush hold, each a text line (one trailing
    /// newline allowed).
    /// - Throws: ``FormatError`` when the report is malformed: no `unpack` line first, no
    ///   status after it, a special packet, a line that is neither `ok` nor `ng`, or a reference
    ///   name git would refuse.
    package init(_ packets: [PacketLine]) throws(FormatError) {
        var lines: [ArraySlice<UInt8>] = []
        for packet in packets {
            guard let line = packet.line else { throw FormatError(.receivePack, "it holds a \(packet) packet before its end") }
            lines.append(line)
        }
        guard let first = lines.first, first.starts(with: "unpack ".utf8), first.count > "unpack ".utf8.count else {
            throw FormatError(.receivePack, "it does not start with an unpack status")
        }
        let unpack = first.dropFirst("unpack ".utf8.count)
        unpackFailure = unpack.elementsEqual("ok".utf8) ? nil : String(decoding: unpack, as: UTF8.self)
        guard lines.count > 1 else { throw FormatError(.receivePack, "it gives no reference's status") }
        var statuses: [Status] = []
        for (number, line) in lines.enumerated().dropFirst() {
            let ok = line.starts(with: "ok ".utf8)
            guard ok || line.starts(with: "ng ".utf8) else {
                throw FormatError(.receivePack, "line \(number + 1) is neither ok nor ng")
            }
            let rest = line.dropFirst(3)
            let nameEnd = ok ? rest.endIndex : (rest.firstIndex(of: 0x20) ?? rest.endIndex)
            let name = rest[..<nameEnd]
            guard ReferenceName.isValid(name) else { throw FormatError(.receivePack, "line \(number + 1) names no valid reference") }
            let reason = ok ? nil : String(decoding: rest[nameEnd...].dropFirst(), as: UTF8.self)
            statuses.append(Status(reference: String(decoding: name, as: UTF8.self), refusal: reason))
        }
        self.statuses = statuses
    }
}
