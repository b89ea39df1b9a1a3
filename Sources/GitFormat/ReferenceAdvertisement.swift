/// The references a server advertises when a client connects to upload-pack or receive-pack
/// (git's `pack-protocol.txt`, protocol v0 and v1): pkt-lines `ID SP NAME`, the first with
/// `NUL CAPABILITIES`, then a flush. Over smart http, a `# service=NAME` line and a flush come
/// first.
package struct ReferenceAdvertisement: Equatable, Sendable {
    /// One advertised reference.
    package struct Reference: Equatable, Sendable {
        /// Its full name (`HEAD`, `refs/heads/main`), without a peeled tag's `^{}`.
        package let name: String
        /// The object it names, or for a peeled tag the object the tag points at.
        package let id: OID
        /// True for a line `NAME^{}`: the object an annotated tag points at.
        package let peeled: Bool

        /// A reference named `name` holding `id` (the tag's target when `peeled`).
        package init(name: String, id: OID, peeled: Bool) {
            self.name = name
            self.id = id
            self.peeled = peeled
        }
    }

    /// The references in the order the server sent them (none when it holds none).
    package let references: [Reference]
    /// The capabilities the first line lists, in order.
    package let capabilities: [String]

    /// The advertisement `bytes` hold, whole: nothing may follow its closing flush.
    /// - Parameter service: the service (`git-receive-pack`) whose `# service=` line must come
    ///   first, as smart http sends it; nil for ssh and `git://`.
    /// - Throws: ``FormatError`` for malformed pkt-lines, a missing or other service line, a line
    ///   that is not `ID SP NAME` (an id of 40 hexadecimal digits), a first line without its
    ///   `NUL` and capabilities or another line with one, a name git would refuse, bytes missing
    ///   before the closing flush or following it.
    package init(_ bytes: [UInt8], service: String? = nil) throws(FormatError) {
        var reader = PacketLineReader(bytes)
        func line() throws(FormatError) -> ArraySlice<UInt8>? {
            guard let packet = try reader.next() else { throw FormatError(.advertisement, "it ends before its closing flush") }
            if packet == .flush { return nil }
            guard let line = packet.line else { throw FormatError(.advertisement, "it holds a \(packet) packet") }
            return line
        }
        if let service {
            guard let first = try line(), first.elementsEqual("# service=\(service)".utf8), try line() == nil else {
                throw FormatError(.advertisement, "it does not start with # service=\(service) and a flush")
            }
        }
        var references: [Reference] = []
        var capabilities: [String]?
        var number = 0
        while var text = try line() {
            number += 1
            if number == 1, text.elementsEqual("version 1".utf8) { continue }
            if capabilities != nil, text.starts(with: "shallow ".utf8) {
                guard OID(hex: String(decoding: text.dropFirst(8), as: UTF8.self)) != nil else {
                    throw FormatError(.advertisement, "line \(number) is not shallow and an id")
                }
                continue
            }
            let nul = text.firstIndex(of: 0)
            let first = capabilities == nil
            if first {
                guard let nul else { throw FormatError(.advertisement, "its first line has no NUL before its capabilities") }
                capabilities = text[(nul + 1)...].split(separator: 0x20).map { String(decoding: $0, as: UTF8.self) }
                text = text[..<nul]
            } else if nul != nil {
                throw FormatError(.advertisement, "line \(number) holds a NUL")
            }
            guard text.count > 41, text[text.startIndex + 40] == 0x20, let id = OID(hex: String(decoding: text.prefix(40), as: UTF8.self)) else {
                throw FormatError(.advertisement, "line \(number) is not an id, a space and a name")
            }
            var name = text.dropFirst(41)
            if first, name.elementsEqual("capabilities^{}".utf8), id.bytes.allSatisfy({ $0 == 0 }) { continue }
            if name.elementsEqual(".have".utf8) { continue }
            let peeled = name.reversed().starts(with: "}{^".utf8)
            if peeled { name = name.dropLast(3) }
            guard name.elementsEqual("HEAD".utf8) || ReferenceName.isValid(name) else {
                throw FormatError(.advertisement, "line \(number) names no valid reference")
            }
            references.append(Reference(name: String(decoding: name, as: UTF8.self), id: id, peeled: peeled))
        }
        guard reader.unread == 0 else { throw FormatError(.advertisement, "\(reader.unread) bytes follow its closing flush") }
        self.references = references
        self.capabilities = capabilities ?? []
    }

    /// The id `name` holds, not a peeled tag's target; nil when the server does not advertise it.
    package func id(of name: String) -> OID? {
        references.first { $0.name == name && !$0.peeled }?.id
    }
}
