/// A path pattern in git's syntax, as `.gitattributes` writes them: the patterns of
/// `.concord/policies` (``PolicyRules``), of package folders (`*.note`), and the matching of
/// Concord's ignore rules (which add gitignore's `!` and trailing `/` around it).
///
/// - `*` matches any run of characters but `/`, `?` one character but `/`, `[…]` one character
///   of a set (`[0-9]`, `[abc]`, `[!…]` or `[^…]` for its complement, `[[:digit:]]` and the
///   other POSIX classes, which hold ASCII characters only, as in git); `\` makes the next
///   character literal (`\*`, `\[`), and a `[` that is never closed is itself.
/// - A pattern without `/` matches the last component of a path, at any depth (`*.json`
///   matches `a.json` and `settings/a.json`); one with a `/` matches the whole path from the
///   root (`docs/*.md`; a leading `/` only anchors, a trailing one is dropped).
/// - `**` as a whole component matches any number of folders (`**/logs/*.log`, `docs/**/*.md`);
///   a trailing `/**` matches everything inside a folder, not the folder itself; elsewhere `**`
///   is `*`.
///
/// Characters are Unicode scalars compared by value: `?` and a set take one scalar (git takes
/// one byte, so there `?` does not match `é`), and no normalization makes a letter and its
/// combining mark one (`é` and `e` followed by U+0301 are different names, as their bytes are).
///
/// A match costs at most the product of the pattern's length and the path's, however many `*`
/// a pattern holds: each component is matched with a single backtracking point (git's
/// wildmatch), and `**` with a table bounded by the counts of components. Most patterns refuse
/// a name on the literal start and end of their last component, and its fewest characters,
/// before any token is walked.
public struct GlobPattern: Sendable, Hashable, CustomStringConvertible {
    /// The parsed pattern, which every copy shares: a pattern handed to a match is one
    /// reference to retain, not one for each of its parts.
    private let parsed: Parsed

    /// The pattern as written.
    public var description: String { parsed.description }
    /// True when the pattern matches the whole path from the root; false when it matches the
    /// path's last component.
    var isAnchored: Bool { parsed.isAnchored }
    /// The pattern's components, between its `/`s.
    var components: [Component] { parsed.components }

    /// Parses a pattern: a `/` anywhere in it, a trailing one included, anchors it to the root.
    public init(_ pattern: String) {
        var text = Substring(pattern)
        if text.hasSuffix("/") { text = text.dropLast() }
        parsed = Parsed(text, isAnchored: pattern.unicodeScalars.contains("/"), description: pattern)
    }

    /// Parses a pattern whose anchoring its own syntax decided (gitignore's differs from
    /// `.gitattributes`'s for a trailing `/`). Leading `/`s, and empty components, are skipped.
    package init(_ text: Substring, isAnchored: Bool) {
        parsed = Parsed(text, isAnchored: isAnchored, description: String(text))
    }

    /// True when both are written alike and anchored alike (what they match follows from these).
    public static func == (first: GlobPattern, second: GlobPattern) -> Bool {
        first.parsed === second.parsed || (first.description == second.description && first.isAnchored == second.isAnchored)
    }

    /// Hashes the text and the anchoring, which equality compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(description)
        hasher.combine(isAnchored)
    }

    /// True when `path` (slash-separated, relative to the root; a leading `/` is skipped)
    /// matches.
    public func matches(_ path: String) -> Bool {
        let parts = path.unicodeScalars.split(separator: "/")
        if !isAnchored { return matchesName(parts.last.map(Array.init) ?? []) }
        return matches(components: parts.map(Array.init))
    }

    /// True when the path whose components, from the root, are `path` matches: its last
    /// component alone when the pattern is not anchored.
    package func matches(components path: [[Unicode.Scalar]]) -> Bool {
        // The last name is read in place: `path.last` would be a copy, retained at every rule.
        guard !path.isEmpty else { return false }
        if !isAnchored { return matchesName(path[path.count - 1]) }
        if case .name = parsed.components.last, !mayMatchLast(path[path.count - 1]) { return false }
        return matchesComponents(path)
    }

    /// Matches a path's last component against a pattern that is not anchored: one component.
    /// Inlined, so that the name is borrowed from the path, not retained for the call.
    @inline(__always)
    private func matchesName(_ name: [Unicode.Scalar]) -> Bool {
        let components = parsed.components
        guard components.count == 1, case let .name(tokens) = components[0] else { return components == [.anyFolders] }
        return mayMatchLast(name) && Self.matches(tokens, name)
    }

    /// False when `name` cannot match the last component's tokens: too short, or without their
    /// literal start and end.
    private func mayMatchLast(_ name: [Unicode.Scalar]) -> Bool {
        name.count >= parsed.shortest && name.starts(with: parsed.literalPrefix) && name.reversed().starts(with: parsed.literalSuffix.reversed())
    }
}
