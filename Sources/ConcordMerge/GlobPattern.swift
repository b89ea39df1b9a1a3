/// A path pattern as `.gitattributes` writes them: `*` matches within one path component, `?`
/// one character other than `/`, `**` any number of components; a pattern without `/` matches
/// the last component of a path, one with `/` the whole path from the root (a leading `/` only
/// anchors). A character preceded by `\` matches itself.
public struct GlobPattern: Sendable, Hashable, CustomStringConvertible {
    private enum Token: Hashable {
        case character(Character)
        case anyCharacter
        case anyRun
        case anyDirectories
        case anything
    }

    /// The pattern as written.
    public let description: String
    private let tokens: [Token]
    private let matchesLastComponent: Bool

    /// Parses a pattern.
    public init(_ pattern: String) {
        description = pattern
        var text = Substring(pattern)
        matchesLastComponent = !text.contains("/")
        if text.hasPrefix("/") { text = text.dropFirst() }
        var tokens: [Token] = []
        var characters = Array(text)
        if characters.last == "/" { characters.removeLast() }
        var index = 0
        while index < characters.count {
            let character = characters[index]
            switch character {
            case "\\" where index + 1 < characters.count:
                tokens.append(.character(characters[index + 1]))
                index += 2
                continue
            case "?": tokens.append(.anyCharacter)
            case "*" where index + 1 < characters.count && characters[index + 1] == "*":
                let atStart = index == 0 || characters[index - 1] == "/"
                let slashAfter = index + 2 < characters.count && characters[index + 2] == "/"
                let atEnd = index + 2 == characters.count
                if atStart && slashAfter {
                    tokens.append(.anyDirectories)
                    index += 3
                    continue
                } else if atStart && atEnd {
                    tokens.append(.anything)
                } else {
                    tokens.append(.anyRun)
                }
                index += 2
                continue
            case "*": tokens.append(.anyRun)
            default: tokens.append(.character(character))
            }
            index += 1
        }
        self.tokens = tokens
    }

    /// True when `path` (slash-separated, relative to the root) matches.
    public func matches(_ path: String) -> Bool {
        var subject = Substring(path)
        while subject.hasPrefix("/") { subject = subject.dropFirst() }
        if matchesLastComponent, let slash = subject.lastIndex(of: "/") {
            subject = subject[subject.index(after: slash)...]
        }
        let characters = Array(subject)
        var memo: [Int: Bool] = [:]
        return match(tokenIndex: 0, at: 0, in: characters, memo: &memo)
    }

    private func match(tokenIndex: Int, at position: Int, in characters: [Character], memo: inout [Int: Bool]) -> Bool {
        let key = tokenIndex * (characters.count + 1) + position
        if let known = memo[key] { return known }
        let result: Bool
        if tokenIndex == tokens.count {
            result = position == characters.count
        } else {
            switch tokens[tokenIndex] {
            case let .character(expected):
                result =
                    position < characters.count && characters[position] == expected
                    && match(tokenIndex: tokenIndex + 1, at: position + 1, in: characters, memo: &memo)
            case .anyCharacter:
                result =
                    position < characters.count && characters[position] != "/"
                    && match(tokenIndex: tokenIndex + 1, at: position + 1, in: characters, memo: &memo)
            case .anyRun:
                var end = position
                var found = match(tokenIndex: tokenIndex + 1, at: end, in: characters, memo: &memo)
                while !found, end < characters.count, characters[end] != "/" {
                    end += 1
                    found = match(tokenIndex: tokenIndex + 1, at: end, in: characters, memo: &memo)
                }
                result = found
            case .anything:
                result = true
            case .anyDirectories:
                var found = match(tokenIndex: tokenIndex + 1, at: position, in: characters, memo: &memo)
                var end = position
                while !found, end < characters.count {
                    if characters[end] == "/" {
                        found = match(tokenIndex: tokenIndex + 1, at: end + 1, in: characters, memo: &memo)
                    }
                    end += 1
                }
                result = found
            }
        }
        memo[key] = result
        return result
    }
}
