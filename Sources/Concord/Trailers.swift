internal import Foundation
internal import ConcordMerge
internal import Git
internal import GitFormat

/// The trailers Concord writes at the end of each commit message, and reads back.
struct Trailers: Equatable {
    static let document = "Concord-Document"
    static let device = "Concord-Device"
    static let clock = "Concord-Clock"
    static let resolves = "Concord-Resolves"
    static let conflict = "Concord-Conflict"
    /// On an integration: `<version id> <document>`, the current version of a document whose
    /// content is the same on both parents though its version differs (a resolution that kept
    /// the content), so that finding the current version never follows the wrong parent.
    static let current = "Concord-Current"

    var pairs: [(key: String, value: String)] = []

    static func == (lhs: Trailers, rhs: Trailers) -> Bool {
        lhs.pairs.map { "\($0.key)=\($0.value)" } == rhs.pairs.map { "\($0.key)=\($0.value)" }
    }

    init(_ pairs: [(key: String, value: String)] = []) { self.pairs = pairs }

    /// Reads the `Key: value` lines of the message's last paragraph (paragraphs end at an empty
    /// line, lines at `\n`; keys start with `Concord-`; spaces around both are dropped). Read as
    /// bytes: a resolution's message names every document it resolved.
    init(message: String) {
        var message = message
        message.withUTF8 { bytes in
            guard let last = Self.lastParagraph(bytes) else { return }
            var lineStart = last.lowerBound
            for index in last.lowerBound...last.upperBound where index == last.upperBound || bytes[index] == 0x0A {
                if let pair = Self.pair(UnsafeBufferPointer(rebasing: bytes[lineStart..<index])) { pairs.append(pair) }
                lineStart = index + 1
            }
        }
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

    /// A `Concord-Key: value` line's key and value, trimmed of spaces; nil for any other line.
    private static func pair(_ line: UnsafeBufferPointer<UInt8>) -> (key: String, value: String)? {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let key = trimmed(UnsafeBufferPointer(rebasing: line[..<colon]))
        guard key.starts(with: "Concord-".utf8) else { return nil }
        return (String(decoding: key, as: UTF8.self), String(decoding: trimmed(UnsafeBufferPointer(rebasing: line[(colon + 1)...])), as: UTF8.self))
    }

    private static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var slice = bytes[...]
        while slice.first == 0x20 { slice = slice.dropFirst() }
        while slice.last == 0x20 { slice = slice.dropLast() }
        return UnsafeBufferPointer(rebasing: slice)
    }

    func value(_ key: String) -> String? { pairs.first { $0.key == key }?.value }
    func values(_ key: String) -> [String] { pairs.filter { $0.key == key }.map(\.value) }

    mutating func add(_ key: String, _ value: String) { pairs.append((key, value)) }

    /// The versions this commit resolved for `document`: the `Concord-Resolves` lines after its
    /// `Concord-Document` line, up to the next document's (one commit can resolve several
    /// documents). Empty when the commit resolved nothing of it.
    func resolved(_ document: DocumentPath) -> [String] {
        var result: [String] = []
        var inGroup = false
        for (key, value) in pairs {
            if key == Self.document {
                inGroup = value == document.value
            } else if key == Self.resolves, inGroup {
                result.append(value)
            }
        }
        return result
    }

    /// The version a `Concord-Current` trailer names for `document`.
    func current(of document: DocumentPath) -> OID? {
        for value in values(Self.current) {
            guard let space = value.firstIndex(of: " "), String(value[value.index(after: space)...]) == document.value else { continue }
            return OID(hex: String(value[..<space]))
        }
        return nil
    }

    /// The message: a subject line, a blank line, the trailers.
    func message(subject: String) -> String {
        let body = pairs.map { "\($0.key): \($0.value)" }.joined(separator: "\n")
        return "\(subject)\n\n\(body)\n"
    }
}

extension Substring {
    func trimmingCharacters(in set: Character) -> String {
        var slice = self[...]
        while slice.first == set { slice = slice.dropFirst() }
        while slice.last == set { slice = slice.dropLast() }
        return String(slice)
    }
}

/// What Concord knows of a commit: who saved it, when, and its clock.
struct Stamp {
    var deviceName: String
    var deviceID: String
    var clock: HybridLogicalClock
    var date: Date
    var trailers: Trailers

    init(_ commit: Commit, trailers: Trailers) {
        self.trailers = trailers
        deviceName = commit.author.name
        deviceID = trailers.value(Trailers.device) ?? commit.author.email
        date = commit.author.time
        clock = trailers.value(Trailers.clock).flatMap(HybridLogicalClock.init) ?? HybridLogicalClock(date: commit.author.time)
    }
}
