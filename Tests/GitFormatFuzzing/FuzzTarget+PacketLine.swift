internal import GitFormat

extension FuzzTarget {
    /// Bytes a server sends in pkt-lines. Input: one byte giving the size of the pieces they
    /// arrive in (1 to 256, less one), whose high bit says they come over smart http and whose
    /// next bit says the rest is text lines to frame here (each line a packet, then a flush, so
    /// that an edit of a line keeps the framing whole), then the bytes.
    ///
    /// ``PacketLineReader`` must read, whole and piece by piece alike, exactly the packets a
    /// plain reading of the framing finds, and stop where it stops: at the first length that is
    /// not four hexadecimal digits, is 3 or is over 65520 (an error), or at the end of the bytes
    /// (waiting for more, with the same bytes unread). Each packet written back
    /// (``PacketLine/encoded()``) must be the bytes it was read from, its digits in lowercase.
    /// The packets before the first flush, read as receive-pack's report (``PushReport``), must
    /// be accepted exactly when the report's grammar accepts them, with the same statuses, and
    /// the report written back must read the same. The bytes read as an advertisement
    /// (``ReferenceAdvertisement``, with smart http's `# service=git-receive-pack` first when
    /// the high bit says so) must be accepted exactly when its grammar accepts them, with the
    /// same references and capabilities. Read as upload-pack's answer to a fetch
    /// (``UploadPackAnswer``), whole and piece by piece, they must give the parts its grammar
    /// gives (acknowledgements, then side-band packets up to a flush), and be refused exactly
    /// where it refuses them.
    static func packetLine(_ raw: UnsafeRawBufferPointer) throws(FuzzFailure) {
        var input = FuzzInput(raw)
        let steering = input.number(bytes: 1)
        let piece = steering + 1
        let bytes = steering & 0x40 == 0 ? input.rest() : framedLines(input.rest())
        let expected = framingModel(bytes)

        let service = steering & 0x80 != 0 ? "git-receive-pack" : nil
        let advertisement = Result { () throws(FormatError) in try ReferenceAdvertisement(bytes, service: service) }
        switch (advertisement, advertisementModel(expected.packets, end: expected.end, service: service)) {
        case (.success(let advertisement), .some(let model)):
            try expect(advertisement.references == model.references, "read other references than the advertisement's lines give")
            try expect(advertisement.capabilities == model.capabilities, "read other capabilities than the first line gives")
        case (.failure, nil):
            break
        case (.success, nil):
            throw FuzzFailure("accepted an advertisement its grammar refuses")
        case (.failure(let error), .some):
            throw FuzzFailure("refused an advertisement of the grammar: \(error)")
        }

        let answer = answerModel(expected.packets, end: expected.end)
        for size in [bytes.count, piece] {
            let read = readAnswer(bytes, pieces: size)
            try expect(read.parts == answer.parts, "an upload-pack answer read in pieces of \(size) gave \(read.parts.count) parts where its grammar gives \(answer.parts.count)")
            try expect(read.refused == answer.refused, "an upload-pack answer read in pieces of \(size) was \(read.refused ? "" : "not ")refused")
        }

        let whole = read(bytes, pieces: bytes.count)
        try expect(whole.packets == expected.packets, "read \(whole.packets.count) packets where the framing holds \(expected.packets.count)")
        try expect(whole.end == expected.end, "stopped with \(whole.end) where the framing stops with \(expected.end)")
        let pieces = read(bytes, pieces: piece)
        try expect(pieces.packets == whole.packets && pieces.end == whole.end, "read in pieces of \(piece) bytes differently from whole")

        var at = 0
        for packet in whole.packets {
            let written: [UInt8]
            do {
                written = try packet.encoded()
            } catch {
                throw FuzzFailure("a packet read cannot be written back: \(error)")
            }
            let original = bytes[at..<(at + 4)].map(lowercased) + bytes[(at + 4)..<(at + written.count)]
            try expect(written == original, "a packet written back differs from its bytes at \(at)")
            at += written.count
        }

        guard let flush = whole.packets.firstIndex(of: .flush) else { return }
        let packets = Array(whole.packets[..<flush])
        let report = Result { () throws(FormatError) in try PushReport(packets) }
        let model = reportModel(packets)
        switch (report, model) {
        case (.success(let report), .some(let expected)):
            try expect(report.unpackFailure == expected.unpackFailure && report.statuses == expected.statuses, "a report read other statuses than its lines give")
            let rewritten = [PacketLine.text("unpack \(report.unpackFailure ?? "ok")\n")] + report.statuses.map { PacketLine.text(line($0) + "\n") }
            let reread = Result { () throws(FormatError) in try PushReport(rewritten) }
            try expect((try? reread.get()) == report, "a report written back reads differently")
        case (.failure, nil):
            break
        case (.success, nil):
            throw FuzzFailure("accepted a report its grammar refuses")
        case (.failure(let error), .some):
            throw FuzzFailure("refused a report of the grammar: \(error)")
        }
    }

    /// `text` split at its newlines, each line (with its newline) a data packet, then a flush.
    private static func framedLines(_ text: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        for line in text.split(separator: 0x0A) {
            let data = Array(line.prefix(PacketLine.maximumLength - 5)) + [0x0A]
            bytes += (try? PacketLine.data(data).encoded()) ?? []
        }
        return bytes + Array("0000".utf8)
    }

    /// Where a reading stopped: at an error, or waiting for more with some bytes unread.
    enum FramingEnd: Equatable, CustomStringConvertible {
        case error
        case waiting(unread: Int)

        var description: String {
            switch self {
            case .error: "an error"
            case .waiting(let unread): "\(unread) bytes unread"
            }
        }
    }

    /// The packets `bytes` hold, received in pieces of `pieces` bytes, read by ``PacketLineReader``.
    private static func read(_ bytes: [UInt8], pieces: Int) -> (packets: [PacketLine], end: FramingEnd) {
        var reader = PacketLineReader()
        var packets: [PacketLine] = []
        let whole = inPieces(bytes, of: pieces) { piece in
            reader.append(piece)
            while let packet = try reader.next() { packets.append(packet) }
        }
        return (packets, whole ? .waiting(unread: reader.unread) : .error)
    }

    /// Hands `bytes` to `take` in pieces of `pieces` bytes (one empty piece for no bytes), as a
    /// connection delivers them, until `take` throws.
    /// - Returns: false when it threw.
    private static func inPieces(_ bytes: [UInt8], of pieces: Int, _ take: (ArraySlice<UInt8>) throws -> Void) -> Bool {
        var start = 0
        repeat {
            let end = min(start + max(pieces, 1), bytes.count)
            do {
                try take(bytes[start..<end])
            } catch {
                return false
            }
            start = end
        } while start < bytes.count
        return true
    }

    /// The parts ``UploadPackAnswer`` reads from `bytes` received in pieces of `pieces` bytes, and
    /// whether it refused them.
    private static func readAnswer(_ bytes: [UInt8], pieces: Int) -> (parts: [UploadPackAnswer.Part], refused: Bool) {
        var answer = UploadPackAnswer()
        var parts: [UploadPackAnswer.Part] = []
        let whole = inPieces(bytes, of: pieces) { piece in
            answer.append(piece)
            while let part = try answer.next() { parts.append(part) }
        }
        return (parts, !whole)
    }

    /// What upload-pack's answer grammar makes of `packets` (the framing's reading of the bytes,
    /// which ended with `end`): the parts up to its end, a refusal or the last whole packet, and
    /// whether it refuses them (a packet off the grammar, bytes after the closing flush, or a
    /// framing error before its end).
    private static func answerModel(_ packets: [PacketLine], end: FramingEnd) -> (parts: [UploadPackAnswer.Part], refused: Bool) {
        var parts: [UploadPackAnswer.Part] = []
        var inPack = false
        for (number, packet) in packets.enumerated() {
            guard case .data(let data) = packet else {
                guard packet == .flush, inPack else { return (parts, true) }
                parts.append(.end)
                return (parts, number != packets.count - 1 || end != .waiting(unread: 0))
            }
            guard let first = data.first else { return (parts, true) }
            if !inPack, first > 3 {
                let line = data.last == 0x0A ? data.dropLast() : data[...]
                if line.starts(with: Array("ERR ".utf8)) {
                    parts.append(.refusal(String(decoding: line.dropFirst(4), as: UTF8.self)))
                    return (parts, false)
                }
                if Array(line) == Array("NAK".utf8) {
                    parts.append(.acknowledged(nil))
                    inPack = true
                    continue
                }
                guard line.count == 44, line.starts(with: Array("ACK ".utf8)), let id = hexID(line.dropFirst(4)) else { return (parts, true) }
                parts.append(.acknowledged(id))
                continue
            }
            inPack = true
            switch first {
            case 1: parts.append(.pack(Array(data.dropFirst())))
            case 2: parts.append(.progress(Array(data.dropFirst())))
            case 3:
                parts.append(.refusal(String(decoding: data.dropFirst(), as: UTF8.self)))
                return (parts, false)
            default: return (parts, true)
            }
        }
        return (parts, end == .error)
    }

    /// The packets of `bytes` by a plain reading of git's framing, and where it stops.
    private static func framingModel(_ bytes: [UInt8]) -> (packets: [PacketLine], end: FramingEnd) {
        var packets: [PacketLine] = []
        var at = 0
        while bytes.count - at >= 4 {
            let digits = String(decoding: bytes[at..<(at + 4)], as: UTF8.self)
            guard digits.allSatisfy({ "0123456789abcdefABCDEF".contains($0) }), let length = Int(digits, radix: 16) else { return (packets, .error) }
            if length < 3 {
                packets.append([PacketLine.flush, .delimiter, .responseEnd][length])
                at += 4
                continue
            }
            guard length != 3, length <= 65520 else { return (packets, .error) }
            guard at + length <= bytes.count else { break }
            packets.append(.data(Array(bytes[(at + 4)..<(at + length)])))
            at += length
        }
        return (packets, .waiting(unread: bytes.count - at))
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte) ? byte + 0x20 : byte
    }

    /// A report's status as one line.
    private static func line(_ status: PushReport.Status) -> String {
        status.refusal.map { "ng \(status.reference) \($0)" } ?? "ok \(status.reference)"
    }

    /// What report-status's grammar makes of `packets`: the unpack failure and the statuses; nil
    /// when it refuses them.
    private static func reportModel(_ packets: [PacketLine]) -> (unpackFailure: String?, statuses: [PushReport.Status])? {
        var lines: [[UInt8]] = []
        for packet in packets {
            guard case .data(var data) = packet else { return nil }
            if data.last == 0x0A { data.removeLast() }
            lines.append(data)
        }
        func text(_ bytes: some Sequence<UInt8>) -> String { String(decoding: Array(bytes), as: UTF8.self) }
        guard let first = lines.first, first.count > 7, text(first.prefix(7)) == "unpack ", lines.count > 1 else { return nil }
        let unpack = text(first.dropFirst(7))
        var statuses: [PushReport.Status] = []
        for line in lines.dropFirst() {
            guard line.count >= 3 else { return nil }
            let words = line.split(separator: 0x20, maxSplits: 2, omittingEmptySubsequences: false)
            guard words.count >= 2 else { return nil }
            switch text(words[0]) {
            case "ok":
                guard words.count == 2, validName(Array(words[1])) else { return nil }
                statuses.append(.init(reference: text(words[1]), refusal: nil))
            case "ng":
                guard validName(Array(words[1])) else { return nil }
                statuses.append(.init(reference: text(words[1]), refusal: words.count > 2 ? text(words[2]) : ""))
            default:
                return nil
            }
        }
        return (unpack == "ok" ? nil : unpack, statuses)
    }

    /// What the advertisement's grammar makes of `packets` (the framing's reading of the bytes,
    /// which ended with `end`): its references and capabilities; nil when it refuses them.
    private static func advertisementModel(_ packets: [PacketLine], end: FramingEnd, service: String?) -> (
        references: [ReferenceAdvertisement.Reference], capabilities: [String]
    )? {
        var body = packets[...]
        if let service {
            guard body.count >= 2, body.first?.line.map(Array.init) == Array("# service=\(service)".utf8), body.dropFirst().first == .flush else { return nil }
            body = body.dropFirst(2)
        }
        guard end == .waiting(unread: 0), body.last == .flush, body.firstIndex(of: .flush) == body.endIndex - 1 else { return nil }
        var lines: [[UInt8]] = []
        for packet in body.dropLast() {
            guard let line = packet.line else { return nil }
            lines.append(Array(line))
        }
        if lines.first == Array("version 1".utf8) { lines.removeFirst() }
        var references: [ReferenceAdvertisement.Reference] = []
        var capabilities: [String]?
        for var line in lines {
            if capabilities != nil, line.count == 48, line.starts(with: Array("shallow ".utf8)), hexID(line[8...]) != nil { continue }
            if capabilities != nil, line.starts(with: Array("shallow ".utf8)) { return nil }
            let first = capabilities == nil
            if first {
                let parts = line.split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2 else { return nil }
                capabilities = parts[1].split(separator: 0x20).map { String(decoding: $0, as: UTF8.self) }
                line = Array(parts[0])
            } else if line.contains(0) {
                return nil
            }
            guard line.count > 41, line[40] == 0x20, let id = hexID(line[0..<40]) else { return nil }
            var name = Array(line[41...])
            if first, name == Array("capabilities^{}".utf8), id.bytes == [UInt8](repeating: 0, count: 20) { continue }
            if name == Array(".have".utf8) { continue }
            let peeled = name.count >= 3 && Array(name.suffix(3)) == Array("^{}".utf8)
            if peeled { name.removeLast(3) }
            guard name == Array("HEAD".utf8) || validName(name) else { return nil }
            references.append(.init(name: String(decoding: name, as: UTF8.self), id: id, peeled: peeled))
        }
        return (references, capabilities ?? [])
    }

    /// The id 40 hexadecimal digits (either case) spell; nil for anything else.
    private static func hexID(_ digits: ArraySlice<UInt8>) -> OID? {
        guard digits.count == 40 else { return nil }
        let values = digits.map { digit -> UInt8? in
            let text = String(decoding: [digit], as: UTF8.self)
            return UInt8(text, radix: 16)
        }
        guard values.allSatisfy({ $0 != nil }) else { return nil }
        let nibbles = values.map { $0 ?? 0 }
        return OID(bytes: stride(from: 0, to: 40, by: 2).map { nibbles[$0] << 4 | nibbles[$0 + 1] })
    }

    /// git's `check_refname_format` for a full name, its rules checked one at a time on the
    /// bytes.
    private static func validName(_ name: [UInt8]) -> Bool {
        func has(_ part: String) -> Bool {
            let part = Array(part.utf8)
            return name.count >= part.count && (0...(name.count - part.count)).contains { Array(name[$0..<($0 + part.count)]) == part }
        }
        if name.isEmpty || name == [UInt8(ascii: "@")] || name.last == UInt8(ascii: ".") || has("..") || has("@{") || has("//") { return false }
        if name.contains(where: { $0 < 0x20 || $0 == 0x7F || Array(" ~^:?*[\\".utf8).contains($0) }) { return false }
        if !has("/") || name.first == UInt8(ascii: "/") || name.last == UInt8(ascii: "/") || has("/.") || name.first == UInt8(ascii: ".") { return false }
        return !has(".lock/") && !(name.count >= 5 && Array(name.suffix(5)) == Array(".lock".utf8))
    }
}
