internal import GitFormat

/// One line of an ignore file in gitignore's syntax, parsed: what it matches, and whether it
/// ignores or re-includes (`!`).
///
/// - `*` matches any run of characters but `/`, `?` one character but `/`, `[…]` one character
///   of a set (`[a-z]`, `[!…]` or `[^…]` for its complement, `[[:digit:]]` and the other POSIX
///   classes); `\` makes the next character literal.
/// - A pattern without a `/` (a trailing one aside) matches a name at any depth; one with a `/`
///   at its start or in its middle matches the path from the container root.
/// - `**` as a whole component matches any number of folders (`**/cache`, `a/**/b`); a trailing
///   `/**` matches everything inside a folder, not the folder itself.
/// - A trailing `/` matches folders only.
///
/// Matching is linear in the pattern and the path for each `*` (a single backtracking point per
/// component, as git's wildmatch), and components are matched with a table bounded by their
/// counts: a hostile file cannot make a match cost more than the product of its size and the path's.
struct IgnorePattern: Hashable, Sendable {
    /// One character position of a component's pattern.
    enum Token: Hashable, Sendable {
        case scalar(Unicode.Scalar)
        case anyScalar
        case anyRun
        case set(ScalarSet)
    }

    /// The characters of a bracket expression.
    struct ScalarSet: Hashable, Sendable {
        var ranges: [ClosedRange<UInt32>] = []
        var classes: [String] = []
        var isNegated = false

        func contains(_ scalar: Unicode.Scalar) -> Bool {
            let inside =
                ranges.contains { $0.contains(scalar.value) }
                || classes.contains { Self.isMember(scalar, ofClass: $0) }
            return inside != isNegated
        }

        /// The POSIX classes of `[[:name:]]`, for ASCII as git reads them.
        static func isMember(_ scalar: Unicode.Scalar, ofClass name: String) -> Bool {
            guard scalar.isASCII else { return false }
            let value = UInt8(scalar.value)
            let isDigit = (48...57).contains(value), isUpper = (65...90).contains(value), isLower = (97...122).contains(value)
            switch name {
            case "alpha": return isUpper || isLower
            case "digit": return isDigit
            case "alnum": return isUpper || isLower || isDigit
            case "upper": return isUpper
            case "lower": return isLower
            case "space": return value == 32 || (9...13).contains(value)
            case "blank": return value == 32 || value == 9
            case "punct": return (33...47).contains(value) || (58...64).contains(value) || (91...96).contains(value) || (123...126).contains(value)
            case "xdigit": return isDigit || (65...70).contains(value) || (97...102).contains(value)
            case "cntrl": return value < 32 || value == 127
            case "print": return (32...126).contains(value)
            case "graph": return (33...126).contains(value)
            default: return false
            }
        }
    }

    /// One component of the pattern: `**`, or the tokens of a name.
    enum Component: Hashable, Sendable {
        case anyFolders
        case name([Token])
    }

    /// True for a `!` line: a path it matches is not ignored.
    let isNegated: Bool
    /// True for a trailing `/`: only folders match.
    let isFolderOnly: Bool
    /// True when the pattern matches the path from the root; false when it matches the last name.
    let isAnchored: Bool
    let components: [Component]
    /// What any name the last component matches starts and ends with, and its fewest
    /// characters (git's `nowildcardlen` and `EXC_FLAG_ENDSWITH`, in spirit): most rules, the
    /// defaults above all (`*.swp`, `.DS_Store`, `*~`), refuse a name on these alone, before the
    /// tokens are walked.
    private let literalPrefix: [Unicode.Scalar], literalSuffix: [Unicode.Scalar], shortest: Int

    /// Parses one line; nil for a blank line, a comment (`#`), or a line that matches nothing
    /// (`/`, `!`).
    init?(line: Substring) {
        var text = line
        if text.hasSuffix("\r") { text = text.dropLast() }
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
        var components: [Component] = []
        for part in text.slashSeparated() {
            if part == "**" {
                if components.last != .anyFolders { components.append(.anyFolders) }
            } else {
                components.append(.name(Self.tokens(of: part)))
            }
        }
        isNegated = negated
        isFolderOnly = folderOnly
        isAnchored = anchored
        self.components = components
        let lastTokens: [Token]
        if case let .name(tokens) = components.last { lastTokens = tokens } else { lastTokens = [] }
        func literals(_ tokens: some Sequence<Token>) -> [Unicode.Scalar] {
            var scalars: [Unicode.Scalar] = []
            for token in tokens {
                guard case let .scalar(scalar) = token else { break }
                scalars.append(scalar)
            }
            return scalars
        }
        literalPrefix = literals(lastTokens)
        literalSuffix = literals(lastTokens.reversed()).reversed()
        shortest = lastTokens.filter { $0 != .anyRun }.count
    }

    /// False when `name` cannot match the last component's tokens: too short, or without their
    /// literal start and end.
    private func mayMatchLast(_ name: [Unicode.Scalar]) -> Bool {
        name.count >= shortest && name.starts(with: literalPrefix) && name.reversed().starts(with: literalSuffix.reversed())
    }

    /// True when the entry at `path` (its components from the root, as scalars) matches,
    /// `isFolder` telling whether it is a folder.
    func matches(_ path: [[Unicode.Scalar]], isFolder: Bool) -> Bool {
        if isFolderOnly && !isFolder { return false }
        guard let last = path.last else { return false }
        if !isAnchored {
            guard components.count == 1, case let .name(tokens) = components[0] else { return components == [.anyFolders] }
            return mayMatchLast(last) && Self.matches(tokens, last)
        }
        // A name component matches one of the path's; the last, its last name.
        if case .name = components.last, !mayMatchLast(last) { return false }
        return matchesComponents(path)
    }

    /// Matches the components against the path's: `**` takes any number of the path's
    /// components (at least one when it ends the pattern), each other component exactly one.
    private func matchesComponents(_ names: [[Unicode.Scalar]]) -> Bool {
        // reachable[j]: the pattern's components so far can match the path's first j components.
        var reachable = [Bool](repeating: false, count: names.count + 1)
        reachable[0] = true
        for (index, component) in components.enumerated() {
            var next = [Bool](repeating: false, count: names.count + 1)
            switch component {
            case .anyFolders:
                let atEnd = index == components.count - 1
                var seen = false
                for j in 0...names.count {
                    if atEnd {
                        if seen { next[j] = true }
                    } else if seen || reachable[j] {
                        next[j] = true
                    }
                    if reachable[j] { seen = true }
                }
            case let .name(tokens):
                for j in 0..<names.count where reachable[j] {
                    if Self.matches(tokens, names[j]) { next[j + 1] = true }
                }
            }
            reachable = next
            if !reachable.contains(true) { return false }
        }
        return reachable[names.count]
    }

    /// Matches one name against a component's tokens: `*` backtracks to its last position only
    /// (there is no `/` in a name, so the last `*` can absorb whatever an earlier one would).
    static func matches(_ tokens: [Token], _ name: [Unicode.Scalar]) -> Bool {
        var t = 0, n = 0
        var star: (token: Int, name: Int)?
        while n < name.count {
            if t < tokens.count {
                switch tokens[t] {
                case .anyRun:
                    star = (t, n)
                    t += 1
                    continue
                case .anyScalar:
                    t += 1
                    n += 1
                    continue
                case let .scalar(scalar) where scalar == name[n]:
                    t += 1
                    n += 1
                    continue
                case let .set(set) where set.contains(name[n]):
                    t += 1
                    n += 1
                    continue
                default:
                    break
                }
            }
            guard let last = star else { return false }
            star = (last.token, last.name + 1)
            t = last.token + 1
            n = last.name + 1
        }
        while t < tokens.count, tokens[t] == .anyRun { t += 1 }
        return t == tokens.count
    }

    /// The tokens of one component's text.
    private static func tokens(of part: Substring) -> [Token] {
        let scalars = Array(part.unicodeScalars)
        var tokens: [Token] = []
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            switch scalar {
            case "\\" where index + 1 < scalars.count:
                tokens.append(.scalar(scalars[index + 1]))
                index += 2
                continue
            case "?":
                tokens.append(.anyScalar)
            case "*":
                if tokens.last != .anyRun { tokens.append(.anyRun) }
            case "[":
                if let (set, end) = bracket(scalars, from: index) {
                    tokens.append(.set(set))
                    index = end
                    continue
                }
                tokens.append(.scalar(scalar))
            default:
                tokens.append(.scalar(scalar))
            }
            index += 1
        }
        return tokens
    }

    /// The set of the bracket expression opening at `start`, and the index after its `]`; nil
    /// when it is not closed (the `[` is then literal).
    private static func bracket(_ scalars: [Unicode.Scalar], from start: Int) -> (ScalarSet, Int)? {
        var set = ScalarSet()
        var index = start + 1
        if index < scalars.count, scalars[index] == "!" || scalars[index] == "^" {
            set.isNegated = true
            index += 1
        }
        var first = true
        while index < scalars.count {
            var scalar = scalars[index]
            if scalar == "]" && !first { return (set, index + 1) }
            first = false
            if scalar == "[", index + 1 < scalars.count, scalars[index + 1] == ":" {
                let rest = scalars[(index + 2)...]
                if let close = rest.indices.first(where: { $0 + 1 < scalars.count && scalars[$0] == ":" && scalars[$0 + 1] == "]" }) {
                    set.classes.append(String(String.UnicodeScalarView(scalars[(index + 2)..<close])))
                    index = close + 2
                    continue
                }
            }
            if scalar == "\\", index + 1 < scalars.count {
                index += 1
                scalar = scalars[index]
            }
            if index + 2 < scalars.count, scalars[index + 1] == "-", scalars[index + 2] != "]" {
                var upper = scalars[index + 2]
                var skip = 3
                if upper == "\\", index + 3 < scalars.count {
                    upper = scalars[index + 3]
                    skip = 4
                }
                if scalar.value <= upper.value { set.ranges.append(scalar.value...upper.value) }
                index += skip
                continue
            }
            set.ranges.append(scalar.value...scalar.value)
            index += 1
        }
        return nil
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
