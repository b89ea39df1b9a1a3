import GitFormat
import Testing

/// A fetch's one request to upload-pack is written as git's pack protocol says, and the answer
/// is read part by part, whole or in pieces, with anything off its grammar refused.
@Suite struct UploadPackTests {
    let tip = OID(hex: String(repeating: "1", count: 40))!
    let base = OID(hex: String(repeating: "2", count: 40))!
    let older = OID(hex: String(repeating: "3", count: 40))!

    /// The parts of `bytes`, received in pieces of `piece` bytes.
    func parts(_ bytes: [UInt8], piece: Int = .max) throws -> [UploadPackAnswer.Part] {
        var answer = UploadPackAnswer()
        var parts: [UploadPackAnswer.Part] = []
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + piece)
            answer.append(bytes[start..<end])
            start = end
            while let part = try answer.next() { parts.append(part) }
        }
        return parts
    }

    func text(_ line: String) throws -> [UInt8] { try PacketLine.text(line).encoded() }

    func band(_ number: UInt8, _ bytes: [UInt8]) throws -> [UInt8] { try PacketLine.data([number] + bytes).encoded() }

    @Test func theRequestNamesTheWantThenTheHavesThenDone() throws {
        let request = try UploadPack.request(want: tip, haves: [base, older], capabilities: ["side-band-64k", "agent=concord"])
        let expected =
            try text("want \(tip.hex) side-band-64k agent=concord\n") + PacketLine.flush.encoded() + text("have \(base.hex)\n")
            + text("have \(older.hex)\n") + text("done\n")
        #expect(request == expected)
        let clone = try UploadPack.request(want: tip, haves: [], capabilities: [])
        #expect(clone == (try text("want \(tip.hex)\n") + PacketLine.flush.encoded() + text("done\n")))
        #expect(throws: FormatError.self) { try UploadPack.request(want: tip, haves: [], capabilities: ["side band"]) }
        #expect(throws: FormatError.self) { try UploadPack.request(want: tip, haves: [], capabilities: [""]) }
    }

    @Test func anAnswerGivesItsAcknowledgementsThenThePackInBands() throws {
        let bytes =
            try text("ACK \(base.hex)\n") + text("ACK \(older.hex)\n") + band(2, Array("Counting objects\r".utf8))
            + band(1, Array("PACK".utf8)) + band(1, [0, 0, 0, 2]) + PacketLine.flush.encoded()
        let expected: [UploadPackAnswer.Part] = [
            .acknowledged(base), .acknowledged(older), .progress(Array("Counting objects\r".utf8)), .pack(Array("PACK".utf8)),
            .pack([0, 0, 0, 2]), .end,
        ]
        #expect(try parts(bytes) == expected)
        #expect(try parts(bytes, piece: 1) == expected)
        let none = try text("NAK\n") + band(1, [9]) + PacketLine.flush.encoded()
        #expect(try parts(none) == [.acknowledged(nil), .pack([9]), .end])
    }

    @Test func theServersRefusalEndsTheAnswer() throws {
        #expect(try parts(try text("ERR upload-pack: not our ref\n") + text("anything")) == [.refusal("upload-pack: not our ref")])
        let late = try text("NAK\n") + band(3, Array("out of memory\n".utf8)) + band(1, [1])
        #expect(try parts(late) == [.acknowledged(nil), .refusal("out of memory\n")])
    }

    @Test func anythingOffTheGrammarIsRefused() throws {
        let malformed: [[UInt8]] = [
            try text("ACK 123\n"),  // no id
            try text("ACK \(tip.hex) common\n"),  // multi_ack's, not asked for
            try text("HELLO\n"),
            try PacketLine.flush.encoded(),  // a flush before the pack
            try text("NAK\n") + band(4, [1]),
            try text("NAK\n") + PacketLine.data([]).encoded(),
            try text("NAK\n") + PacketLine.delimiter.encoded(),
            try text("NAK\n") + PacketLine.flush.encoded() + Array("0000".utf8),  // bytes after the end
            Array("PACK".utf8),  // a raw pack: side-band was asked for
        ]
        for bytes in malformed {
            #expect(throws: FormatError.self, "\(String(decoding: bytes, as: UTF8.self).debugDescription)") { try parts(bytes) }
        }
    }

    @Test func anAnswerCutShortWaitsForMore() throws {
        let bytes = try text("NAK\n") + band(1, [1, 2, 3])
        var answer = UploadPackAnswer()
        answer.append(bytes.dropLast(1))
        #expect(try answer.next() == .acknowledged(nil))
        #expect(try answer.next() == nil)
        #expect(!answer.isComplete)
        answer.append(bytes.suffix(1))
        #expect(try answer.next() == .pack([1, 2, 3]))
    }
}
