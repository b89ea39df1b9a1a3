public import FoundationEssentials
internal import Git

/// The line differences between two UTF-8 texts, found by git's xdiff: the algorithm the text
/// merge policy (``TextMergePolicy``) merges with, so a line shown changed here is a line that
/// policy sees changed.
public struct TextDiff: Sendable, Hashable {
    /// One line of a hunk.
    public struct Line: Sendable, Hashable, Codable {
        /// What the line is to the two texts.
        public enum Kind: String, Sendable, Hashable, Codable {
            /// In both texts.
            case context
            /// Only in the new text.
            case added
            /// Only in the old text.
            case removed
        }

        /// What the line is to the two texts.
        public var kind: Kind
        /// The line's text, without its line break.
        public var text: String
        /// Its number in the old text, from 1; nil for an added line.
        public var oldNumber: Int?
        /// Its number in the new text, from 1; nil for a removed line.
        public var newNumber: Int?
        /// False for a last line with no line break after it.
        public var endsWithNewline: Bool
    }

    /// A run of changed lines with the unchanged lines around them.
    public struct Hunk: Sendable, Hashable, Codable {
        /// The first old line it covers, from 1 (0 when it covers none).
        public var oldStart: Int
        /// How many old lines it covers.
        public var oldCount: Int
        /// The first new line it covers, from 1 (0 when it covers none).
        public var newStart: Int
        /// How many new lines it covers.
        public var newCount: Int
        /// Its lines, in order.
        public var lines: [Line]

        /// `@@ -1,3 +1,4 @@`, as a unified diff heads a hunk.
        public var header: String { "@@ -\(Self.range(oldStart, oldCount)) +\(Self.range(newStart, newCount)) @@" }

        private static func range(_ start: Int, _ count: Int) -> String { count == 1 ? "\(start)" : "\(start),\(count)" }
    }

    /// Two contents that are not both UTF-8 text, which a line diff cannot compare.
    public struct NotText: Error, Sendable, Hashable, CustomStringConvertible {
        /// Which side: `old` or `new`.
        public var side: String

        public var description: String { "the \(side) content is binary, not UTF-8 text" }
    }

    /// The hunks, in order; empty when the texts are the same.
    public var hunks: [Hunk]

    /// Compares `old` with `new` line by line.
    /// - Parameter context: how many unchanged lines to keep around each change (`Int.max`: every line).
    /// - Throws: ``NotText`` when either is not UTF-8 text (``TextMergePolicy/isText(_:)``).
    public init(old: Data, new: Data, context: Int = 3) throws(NotText) {
        guard TextMergePolicy.isText(old) else { throw NotText(side: "old") }
        guard TextMergePolicy.isText(new) else { throw NotText(side: "new") }
        let raw: [LineDiff.Hunk]
        do {
            raw = try LineDiff.hunks(old: old, new: new, context: min(context, Int(Int32.max)))
        } catch {
            // libgit2 refuses only what is not text, which was checked above.
            throw NotText(side: "old")
        }
        hunks = raw.map { hunk in
            Hunk(
                oldStart: hunk.oldStart, oldCount: hunk.oldCount, newStart: hunk.newStart, newCount: hunk.newCount,
                lines: hunk.lines.compactMap(Self.line))
        }
    }

    private static func line(_ raw: LineDiff.Line) -> Line? {
        let kind: Line.Kind
        switch raw.origin {
        case UInt8(ascii: " "): kind = .context
        case UInt8(ascii: "+"): kind = .added
        case UInt8(ascii: "-"): kind = .removed
        default: return nil  // "\ No newline at end of file": told by endsWithNewline instead
        }
        var content = raw.content
        let endsWithNewline = content.last == UInt8(ascii: "\n")
        if endsWithNewline { content.removeLast() }
        return Line(kind: kind, text: String(decoding: content, as: UTF8.self), oldNumber: raw.oldNumber, newNumber: raw.newNumber, endsWithNewline: endsWithNewline)
    }

    /// True when the two texts are the same.
    public var isEmpty: Bool { hunks.isEmpty }

    /// How many lines only the new text has.
    public var addedCount: Int { hunks.reduce(0) { $0 + $1.lines.filter { $0.kind == .added }.count } }

    /// How many lines only the old text has.
    public var removedCount: Int { hunks.reduce(0) { $0 + $1.lines.filter { $0.kind == .removed }.count } }

    /// The lines of a unified diff (`--- old`, `+++ new`, hunk headers, then each line after
    /// its ` `, `+` or `-`), as `diff -u` prints them; none when the texts are the same.
    public func unifiedLines(oldLabel: String, newLabel: String) -> [String] {
        guard !hunks.isEmpty else { return [] }
        var lines = ["--- \(oldLabel)", "+++ \(newLabel)"]
        for hunk in hunks {
            lines.append(hunk.header)
            for line in hunk.lines {
                let mark = line.kind == .added ? "+" : line.kind == .removed ? "-" : " "
                lines.append(mark + line.text)
                if !line.endsWithNewline { lines.append("\\ No newline at end of file") }
            }
        }
        return lines
    }
}
