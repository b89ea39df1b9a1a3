internal import ConcordMerge

/// One line of an ignore file in gitignore's syntax, parsed: what it matches, and whether it
/// ignores or re-includes (`!`).
///
/// What is gitignore's own is read here: `#` comments, blank lines, trailing spaces that no `\`
/// escapes, a leading `!` (re-include), a trailing `/` (folders only), and anchoring: a pattern
/// with a `/` at its start or in its middle matches the path from the container root, one
/// without (a trailing one aside) a name at any depth. The rest of the line is a
/// ``GlobPattern`` (`*`, `?`, `[…]` sets and POSIX classes, `\`, `**`
/// components), which matches it, with its bound on the cost of a hostile pattern.
struct IgnorePattern: Hashable, Sendable {
    /// True for a `!` line: a path it matches is not ignored.
    let isNegated: Bool
    /// True for a trailing `/`: only folders match.
    let isFolderOnly: Bool
    /// The pattern of the line, anchored by gitignore's rule.
    let glob: GlobPattern

    /// Parses one line, its line end already gone (`lines()` drops a CRLF's `\r`); nil for a
    /// blank line, a comment (`#`), or a line that matches nothing (`/`, `!`).
    init?(line: Substring) {
        var text = line
        if text.hasPrefix("#") { return nil }
        text = Self.trimmingTrailingSpaces(text)
        var negated = false
        if text.hasPrefix("!") {
            negated = true
            text = text.dropFirst()
        }
        var folderOnly = false
        if text.hasSuffix("/") && !text.hasSuffix("\\/") {
            folderOnly = true
            while text.hasSuffix("/") { text = text.dropLast() }
        }
        guard !text.isEmpty else { return nil }
        let anchored = text.dropFirst().contains("/") || text.hasPrefix("/")
        if text.hasPrefix("/") { text = text.drop { $0 == "/" } }
        guard !text.isEmpty else { return nil }
        isNegated = negated
        isFolderOnly = folderOnly
        glob = GlobPattern(text, isAnchored: anchored)
    }

    /// True when the entry at `path` (its components from the root, as scalars) matches,
    /// `isFolder` telling whether it is a folder.
    func matches(_ path: [[Unicode.Scalar]], isFolder: Bool) -> Bool {
        if isFolderOnly && !isFolder { return false }
        return glob.matches(components: path)
    }

    /// Drops trailing spaces that no `\` escapes.
    private static func trimmingTrailingSpaces(_ text: Substring) -> Substring {
        var end = text.endIndex
        while end > text.startIndex {
            let before = text.index(before: end)
            guard text[before] == " " else { break }
            var backslashes = 0
            var cursor = before
            while cursor > text.startIndex {
                let previous = text.index(before: cursor)
                guard text[previous] == "\\" else { break }
                backslashes += 1
                cursor = previous
            }
            if backslashes % 2 == 1 { break }
            end = before
        }
        return text[..<end]
    }
}
