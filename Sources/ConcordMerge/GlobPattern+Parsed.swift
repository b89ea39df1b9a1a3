extension GlobPattern {
    /// A pattern parsed once: its components, and what any name its last component matches
    /// starts and ends with, and its fewest scalars (git's `nowildcardlen` and
    /// `EXC_FLAG_ENDSWITH`, in spirit), which refuse most names before any token is walked.
    final class Parsed: Sendable {
        let description: String
        let isAnchored: Bool
        let components: [Component]
        let literalPrefix: [Unicode.Scalar], literalSuffix: [Unicode.Scalar], shortest: Int

        init(_ text: Substring, isAnchored: Bool, description: String) {
            self.description = description
            self.isAnchored = isAnchored
            var components: [Component] = []
            for part in text.unicodeScalars.split(separator: "/") {
                let scalars = Array(part)
                if scalars == ["*", "*"] {
                    if components.last != .anyFolders { components.append(.anyFolders) }
                } else {
                    components.append(.name(GlobPattern.tokens(of: scalars)))
                }
            }
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
    }
}
