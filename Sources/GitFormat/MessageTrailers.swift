/// The trailers of a commit message: the `Key: value` lines of its last paragraph, read in one
/// pass over its bytes (a message may name thousands of documents, and arrives from someone else).
package enum MessageTrailers {
    /// The `Key: value` lines of the last paragraph of `message` whose keys start with
    /// `keyPrefix`, keys and values trimmed of spaces, in order. Paragraphs end at an empty line
    /// (`\n\n`), lines at `\n`; a message of one paragraph has no trailers.
    package static func pairs(in message: UnsafeBufferPointer<UInt8>, keyPrefix: String) -> [(key: String, value: String)] {
        guard let last = lastParagraph(message) else { return [] }
        var pairs: [(key: String, value: String)] = []
        var lineStart = last.lowerBound
        for index in last.lowerBound...last.upperBound where index == last.upperBound || message[index] == 0x0A {
            if let pair = pair(UnsafeBufferPointer(rebasing: message[lineStart..<index]), keyPrefix: keyPrefix) { pairs.append(pair) }
            lineStart = index + 1
        }
        return pairs
    }

    /// The bytes of the last paragraph, when there are two or more: the message split at each
    /// `\n\n` from the start, empty pieces left out.
    private static func lastParagraph(_ bytes: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        var pieces = 0
        var last = 0..<0
        var start = 0
        var index = 0
        while index <= bytes.count {
            let isEnd = index == bytes.count
            if isEnd || (bytes[index] == 0x0A && index + 1 < bytes.count && bytes[index + 1] == 0x0A) {
                if index > start {
                    pieces += 1
                    last = start..<index
                }
                if isEnd { break }
                index += 2
                start = index
            } else {
                index += 1
            }
        }
        return pieces > 1 ? last : nil
    }

    /// A line's key and value, trimmed of spaces, when it holds a `:` and its key starts with
    /// `keyPrefix`; nil otherwise.
    private static func pair(_ line: UnsafeBufferPointer<UInt8>, keyPrefix: String) -> (key: String, value: String)? {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let key = trimmed(UnsafeBufferPointer(rebasing: line[..<colon]))
        guard key.starts(with: keyPrefix.utf8) else { return nil }
        return (String(decoding: key, as: UTF8.self), String(decoding: trimmed(UnsafeBufferPointer(rebasing: line[(colon + 1)...])), as: UTF8.self))
    }

    private static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var slice = bytes[...]
        while slice.first == 0x20 { slice = slice.dropFirst() }
        while slice.last == 0x20 { slice = slice.dropLast() }
        return UnsafeBufferPointer(rebasing: slice)
    }
}
