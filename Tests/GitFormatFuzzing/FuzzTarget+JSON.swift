internal import ConcordMerge
internal import FoundationEssentials

extension FuzzTarget {
    /// ConcordMerge's JSON reader, which reads what the cloud brings as JSON: the versions the
    /// JSON policy merges and the key-value store's entries. Input: the text's bytes.
    ///
    /// ``JSONValue/init(parsing:)`` must refuse the bytes with a one-line error that names a line
    /// and a column inside them, or read them. A text it reads is UTF-8 (RFC 8259), and the value
    /// written in each style (standard, compact, and the style detected in the text, as a merge
    /// writes it) reads back as the same value, and writes again as the same bytes. A `clock`
    /// member that reads as a ``HybridLogicalClock`` (as a key-value entry's does) is the clock
    /// its own text reads as.
    static func json(_ raw: UnsafeRawBufferPointer) throws(FuzzFailure) {
        let bytes = Array(raw)
        let value: JSONValue
        do {
            value = try JSONValue(parsing: Data(bytes))
        } catch {
            let lines = bytes.count(where: { $0 == 0x0A }) + 1
            try expect(!error.message.isEmpty && !error.message.contains("\n"), "the error is not one line: \(error.message)")
            try expect((1...lines).contains(error.line), "the error names line \(error.line) of \(lines)")
            try expect((1...bytes.count + 1).contains(error.column), "the error names column \(error.column) of a \(bytes.count)-byte text")
            return
        }
        let text = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
        try expect(String(validating: text, as: UTF8.self) != nil, "a text that is not UTF-8 was read as JSON")
        for style in [JSONStyle.standard, .compact, JSONStyle(detectingIn: bytes)] {
            let written = value.text(style: style)
            let again: JSONValue
            do {
                again = try JSONValue(parsing: written)
            } catch {
                throw FuzzFailure("the value written in \(style) did not read back: \(error)")
            }
            try expect(again == value, "the value written in \(style) read back as another value")
            try expect(again.text(style: style) == written, "the value written in \(style) was written differently the second time")
        }
        if case let .string(text)? = value["clock"], let clock = HybridLogicalClock(text) {
            try expect(HybridLogicalClock(clock.description) == clock, "the clock \(text) read as \(clock), whose text reads as another clock")
            try expect(clock <= .latest, "the clock \(text) read as \(clock), past the latest")
        }
    }
}
