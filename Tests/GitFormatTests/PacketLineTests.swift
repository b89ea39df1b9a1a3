import GitFormat
import Testing

/// pkt-lines are read with git's checks, whole or in pieces, and written so that they read
/// back; receive-pack's request and report are written and read as git's pack protocol says.
@Suite struct PacketLineTests {
    /// Every packet `bytes` holds, and how many bytes are left unread after them.
    func packets(_ bytes: String) throws -> (packets: [PacketLine], unread: Int) {
        var reader = PacketLineReader(Array(bytes.utf8))
        var packets: [PacketLine] = []
        while let packet = try reader.next() { packets.append(packet) }
        return (packets, reader.unread)
    }

    @Test func packetsAreReadWithTheSpecialOnes() throws {
        let read = try packets("0009hello00000001000200040009a\nb\n\n")
        #expect(read.packets == [.text("hello"), .flush, .delimiter, .responseEnd, .data([]), .text("a\nb\n\n")])
        #expect(read.unread == 0)
        #expect(try packets("000AABCDEF").packets == [.text("ABCDEF")])
    }

    @Test func aLengthPastTheBytesWaitsForMore() throws {
        var reader = PacketLineReader(Array("000chel".utf8))
        #expect(try reader.next() == nil)
        #expect(reader.unread == 7)
        reader.append("lo w".utf8)
        #expect(try reader.next() == nil)
        reader.append("o".utf8)
        #expect(try reader.next() == .text("hello wo"))
        #expect(try reader.next() == nil)
        reader.append("00".utf8)
        #expect(try reader.next() == nil)
        reader.append("00".utf8)
        #expect(try reader.next() == .flush)
    }

    @Test func aLengthThatIsNotFourHexadecimalDigitsIsRefused() throws {
        for bad in ["00g9hello", "+00ahello", " 009hello", "-001", "0x09hello", "PACK"] {
            let error = try #require(throws: FormatError.self, "\(bad)") { try packets(bad) }
            #expect(error.format == .packetLine && error.message.contains("not four hexadecimal digits"), "\(error)")
        }
    }

    @Test func aLengthOf3IsRefused() throws {
        let error = try #require(throws: FormatError.self) { try packets("0003x") }
        #expect(error.message.contains("length of 3"), "\(error)")
    }

    @Test func aLineOverTheLimitIsRefusedBeforeItsBytesArrive() throws {
        let error = try #require(throws: FormatError.self) { try packets("fff1") }
        #expect(error.message.contains("65521 is over the limit of 65520"), "\(error)")
        let longest = String(repeating: "x", count: PacketLine.maximumLength - 4)
        #expect(try packets("fff0" + longest).packets == [.text(longest)])
        #expect(throws: FormatError.self) { try PacketLine.text(longest + "x").encoded() }
    }

    @Test func writtenPacketsReadBack() throws {
        let written: [PacketLine] = [.text("unpack ok\n"), .data([]), .data([0, 0xFF, 0x0A]), .flush, .delimiter, .responseEnd]
        let bytes = try written.flatMap { try $0.encoded() }
        #expect(String(decoding: bytes.prefix(14), as: UTF8.self) == "000eunpack ok\n")
        var reader = PacketLineReader(bytes)
        var read: [PacketLine] = []
        while let packet = try reader.next() { read.append(packet) }
        #expect(read == written)
    }

    @Test func anUpdateRequestIsOneCommandAndAFlush() throws {
        let old = try #require(OID(hex: String(repeating: "1", count: 40)))
        let new = try #require(OID(hex: String(repeating: "2", count: 40)))
        let request = try ReceivePack.updateRequest(reference: "refs/heads/main", from: old, to: new, capabilities: ["report-status", "agent=concord"])
        let command = "\(old.hex) \(new.hex) refs/heads/main\0report-status agent=concord\n"
        #expect(request == Array((String(command.utf8.count + 4, radix: 16).leftPadded() + command + "0000").utf8))
        let created = try ReceivePack.updateRequest(reference: "refs/heads/main", from: nil, to: new, capabilities: [])
        #expect(String(decoding: created, as: UTF8.self).hasPrefix("0067" + String(repeating: "0", count: 40) + " "))
        #expect(throws: FormatError.self) { try ReceivePack.updateRequest(reference: "refs/heads/a..b", from: nil, to: new, capabilities: []) }
        #expect(throws: FormatError.self) { try ReceivePack.updateRequest(reference: "refs/heads/main", from: nil, to: new, capabilities: ["a b"]) }
    }

    @Test func aReportSaysWhatMovedAndWhy() throws {
        let report = try PushReport([.text("unpack ok\n"), .text("ok refs/heads/main\n"), .text("ng refs/heads/next fetch first\n"), .text("ng refs/tags/v1")])
        #expect(report.unpackFailure == nil)
        #expect(
            report.statuses == [
                .init(reference: "refs/heads/main", refusal: nil), .init(reference: "refs/heads/next", refusal: "fetch first"),
                .init(reference: "refs/tags/v1", refusal: ""),
            ])
        let failed = try PushReport([.text("unpack index-pack abnormal exit\n"), .text("ng refs/heads/main unpacker error\n")])
        #expect(failed.unpackFailure == "index-pack abnormal exit")
        #expect(failed.statuses == [.init(reference: "refs/heads/main", refusal: "unpacker error")])
    }

    @Test func aMalformedReportIsRefused() throws {
        let reports: [[PacketLine]] = [
            [],
            [.text("ok refs/heads/main\n")],  // no unpack status
            [.text("unpack \n"), .text("ok refs/heads/main\n")],
            [.text("unpack ok\n")],  // no status
            [.text("unpack ok\n"), .text("done refs/heads/main\n")],
            [.text("unpack ok\n"), .delimiter, .text("ok refs/heads/main\n")],
            [.text("unpack ok\n"), .text("ok refs/heads/main extra\n")],
        ]
        for packets in reports {
            #expect(throws: FormatError.self, "\(packets)") { try PushReport(packets) }
        }
    }

    @Test func aReportNamingABadReferenceIsRefused() throws {
        for name in [
            "main", "refs/heads/a..b", "refs/heads/.hidden", "refs/heads/x.lock", "refs//main", "refs/heads/", "refs/a@{1}", "refs/a b", "refs/a\u{7F}", "refs/a.", "@",
            "refs/a\\b",
        ] {
            let error = try #require(throws: FormatError.self, "\(name.debugDescription)") { try PushReport([.text("unpack ok"), .text("ok \(name)")]) }
            #expect(error.format == .receivePack && error.message.contains("names no valid reference"), "\(error)")
            #expect(!ReferenceName.isValid(name.utf8), "\(name.debugDescription)")
        }
        for name in ["refs/heads/main", "refs/heads/a.b", "refs/tags/v1.0", "refs/heads/é", "refs/heads/a@b", "HEAD/x"] {
            #expect(ReferenceName.isValid(name.utf8), "\(name.debugDescription)")
        }
    }
}

extension String {
    fileprivate func leftPadded() -> String { String(repeating: "0", count: max(0, 4 - count)) + self }
}

/// A reference advertisement is read as git's pack protocol writes it, over ssh, `git://` and
/// smart http, and refused whole when any line is not of its shape.
@Suite struct ReferenceAdvertisementTests {
    let main = String(repeating: "1", count: 40)
    let tag = String(repeating: "2", count: 40)
    let target = String(repeating: "3", count: 40)

    /// `lines` as pkt-lines and a flush.
    func framed(_ lines: [String], flush: Bool = true) throws -> [UInt8] {
        try lines.flatMap { try PacketLine.text($0).encoded() } + (flush ? PacketLine.flush.encoded() : [])
    }

    @Test func anAdvertisementGivesItsReferencesAndCapabilities() throws {
        let bytes = try framed([
            "\(main) HEAD\0multi_ack side-band-64k symref=HEAD:refs/heads/main\n", "\(main) refs/heads/main\n", "\(tag) refs/tags/v1\n", "\(target) refs/tags/v1^{}\n",
            "\(tag) .have\n", "shallow \(tag)\n",
        ])
        let advertisement = try ReferenceAdvertisement(bytes)
        #expect(advertisement.capabilities == ["multi_ack", "side-band-64k", "symref=HEAD:refs/heads/main"])
        #expect(advertisement.references.map(\.name) == ["HEAD", "refs/heads/main", "refs/tags/v1", "refs/tags/v1"])
        #expect(advertisement.id(of: "refs/heads/main")?.hex == main)
        #expect(advertisement.id(of: "refs/tags/v1")?.hex == tag)
        #expect(advertisement.id(of: "refs/heads/other") == nil)
    }

    @Test func anEmptyRepositoryAdvertisesOnlyItsCapabilities() throws {
        let advertisement = try ReferenceAdvertisement(framed(["\(String(repeating: "0", count: 40)) capabilities^{}\0report-status delete-refs\n"]))
        #expect(advertisement.references.isEmpty && advertisement.capabilities == ["report-status", "delete-refs"])
        #expect(try ReferenceAdvertisement(PacketLine.flush.encoded()).references.isEmpty)
    }

    @Test func smartHTTPSendsItsServiceFirst() throws {
        let lines = try framed(["\(main) refs/heads/main\0report-status\n"])
        let http = try framed(["# service=git-receive-pack\n"]) + lines
        #expect(try ReferenceAdvertisement(http, service: "git-receive-pack").id(of: "refs/heads/main")?.hex == main)
        #expect(throws: FormatError.self) { try ReferenceAdvertisement(lines, service: "git-receive-pack") }
        #expect(throws: FormatError.self) { try ReferenceAdvertisement(http, service: "git-upload-pack") }
        #expect(throws: FormatError.self) { try ReferenceAdvertisement(http) }
    }

    @Test func aFirstLineWithoutItsNULIsRefused() throws {
        let error = try #require(throws: FormatError.self) { try ReferenceAdvertisement(framed(["\(main) refs/heads/main report-status\n"])) }
        #expect(error.format == .advertisement && error.message.contains("no NUL"), "\(error)")
        #expect(throws: FormatError.self) { try ReferenceAdvertisement(framed(["\(main) refs/heads/main\0report-status\n", "\(tag) refs/tags/v1\0x\n"])) }
    }

    @Test func aBadReferenceNameOrIdIsRefused() throws {
        for name in ["refs/heads/a..b", "main", "refs/heads/x.lock", "refs/heads/a b", "refs/heads/", ".have^{}", "HEAD^{}x"] {
            let error = try #require(throws: FormatError.self, "\(name)") { try ReferenceAdvertisement(framed(["\(main) \(name)\0caps\n"])) }
            #expect(error.message.contains("names no valid reference"), "\(name): \(error)")
        }
        for line in ["\(main.dropLast()) refs/heads/main\0\n", "\(main)\trefs/heads/main\0\n", "\(main.dropLast())g refs/heads/main\0\n", "\(main) \0\n"] {
            #expect(throws: FormatError.self, "\(line)") { try ReferenceAdvertisement(framed([line])) }
        }
    }

    @Test func anAdvertisementCutShortOrFollowedByBytesIsRefused() throws {
        let whole = try framed(["\(main) refs/heads/main\0report-status\n"])
        for cut in [whole.count - 4, whole.count - 10, 3] {
            let error = try #require(throws: FormatError.self) { try ReferenceAdvertisement(Array(whole.prefix(cut))) }
            #expect(error.message.contains("ends before its closing flush"), "\(error)")
        }
        let error = try #require(throws: FormatError.self) { try ReferenceAdvertisement(whole + Array("0000".utf8)) }
        #expect(error.message.contains("4 bytes follow"), "\(error)")
        #expect(throws: FormatError.self) { try ReferenceAdvertisement(Array("00zz".utf8)) }
    }
}
