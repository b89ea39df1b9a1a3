public import FoundationEssentials

/// A text's versions cut into the regions a person picks from, hunk by hunk: the lines every
/// version left as the common ancestor had them, and between them each changed region with the
/// ancestor's lines and each version's lines for it.
///
/// Changes of different versions that overlap or touch (as a three-way merge would find them in
/// conflict) fall in one region; a region changed by one version only is one a merge takes
/// without a person. Lines keep their line breaks, so joining a choice of them gives the text.
public struct TextRegions: Sendable, Hashable {
    /// A stretch of the text.
    public struct Region: Sendable, Hashable, Codable {
        /// The common ancestor's lines (each with its line break, when it has one).
        public var base: [String]
        /// Each version's lines for it, in the order the versions were given.
        public var versions: [[String]]

        /// True when some version's lines differ from the ancestor's.
        public var isChanged: Bool { versions.contains { $0 != base } }

        /// The indices of the versions whose lines differ from the ancestor's.
        public var changedBy: [Int] { versions.indices.filter { versions[$0] != base } }
    }

    /// One version's change: the ancestor's lines `start..<end` (indices from 0) replaced by `lines`.
    public struct Change: Sendable, Hashable, Codable {
        /// The first ancestor line replaced (an insertion: the line it goes before).
        public var start: Int
        /// The line after the last one replaced (`start` for an insertion).
        public var end: Int
        /// The lines put there, each with its line break.
        public var lines: [String]
    }

    /// The regions, in the text's order; unchanged and changed ones alternate.
    public var regions: [Region]
    /// The ancestor's lines, each with its line break (the last one without, when the text does not end with one).
    public var baseLines: [String]
    /// Each version's changes against the ancestor, in order, in the order the versions were given.
    public var changes: [[Change]]

    /// Cuts `versions` into regions against `base`.
    /// - Throws: ``TextDiff/NotText`` when one of them is not UTF-8 text.
    public init(base: Data, versions: [Data]) throws(TextDiff.NotText) {
        let baseLines = Self.lines(base)
        // Each version's changes as (start, end) in the ancestor's lines, half-open, with the lines they put there.
        var changes: [(version: Int, start: Int, end: Int, lines: [String])] = []
        for (index, version) in versions.enumerated() {
            for hunk in try TextDiff(old: base, new: version, context: 0).hunks {
                let start = hunk.oldCount == 0 ? hunk.oldStart : hunk.oldStart - 1
                let added = hunk.lines.filter { $0.kind == .added }.map { $0.text + ($0.endsWithNewline ? "\n" : "") }
                changes.append((index, start, start + hunk.oldCount, added))
            }
        }
        self.baseLines = baseLines
        self.changes = versions.indices.map { index in
            changes.filter { $0.version == index }.map { Change(start: $0.start, end: $0.end, lines: $0.lines) }
        }
        changes.sort { ($0.start, $0.end) < ($1.start, $1.end) }
        // Changes that overlap or touch make one region.
        var groups: [(start: Int, end: Int, changes: [(version: Int, start: Int, end: Int, lines: [String])])] = []
        for change in changes {
            if let last = groups.last, change.start <= last.end {
                groups[groups.count - 1].end = max(last.end, change.end)
                groups[groups.count - 1].changes.append(change)
            } else {
                groups.append((change.start, change.end, [change]))
            }
        }
        var regions: [Region] = []
        var position = 0
        for group in groups {
            if group.start > position {
                let same = Array(baseLines[position..<group.start])
                regions.append(Region(base: same, versions: Array(repeating: same, count: versions.count)))
            }
            let original = Array(baseLines[group.start..<group.end])
            let replaced = versions.indices.map { index in
                var lines: [String] = []
                var cursor = group.start
                for change in group.changes where change.version == index {
                    lines += baseLines[cursor..<change.start]
                    lines += change.lines
                    cursor = change.end
                }
                return lines + baseLines[cursor..<group.end]
            }
            regions.append(Region(base: original, versions: replaced))
            position = group.end
        }
        if position < baseLines.count {
            let same = Array(baseLines[position...])
            regions.append(Region(base: same, versions: Array(repeating: same, count: versions.count)))
        }
        self.regions = regions
    }

    /// The text made by taking, in each changed region, the lines of the versions `choices` names
    /// for it, in that order (an empty choice: the ancestor's lines); unchanged regions as they are.
    /// - Parameter choices: one list of version indices for each changed region, in order; missing
    ///   lists take the ancestor's lines.
    public func text(choosing choices: [[Int]]) -> String {
        var text = ""
        var changed = 0
        for region in regions {
            guard region.isChanged else {
                text += region.base.joined()
                continue
            }
            let picked = changed < choices.count ? choices[changed] : []
            changed += 1
            text += picked.isEmpty ? region.base.joined() : picked.map { region.versions[$0].joined() }.joined()
        }
        return text
    }

    /// A text's lines, each with its line break (the last one without, when the text does not end with one).
    static func lines(_ data: Data) -> [String] {
        var lines: [String] = []
        var start = data.startIndex
        while start < data.endIndex {
            let end = data[start...].firstIndex(of: UInt8(ascii: "\n")).map { data.index(after: $0) } ?? data.endIndex
            lines.append(String(decoding: data[start..<end], as: UTF8.self))
            start = end
        }
        return lines
    }
}
