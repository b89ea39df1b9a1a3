extension GlobPattern {
    /// One component of a pattern: `**`, or the tokens of a name.
    enum Component: Hashable, Sendable {
        case anyFolders
        case name([Token])
    }

    /// One character position of a component's pattern.
    enum Token: Hashable, Sendable {
        case scalar(Unicode.Scalar)
        case anyScalar
        case anyRun
        case set(ScalarSet)
    }

    /// The tokens of one component's text; consecutive `*`s are one. Once a `[` is never
    /// closed, no later `[` of the component is tried: each is itself, and the text is read in
    /// one pass.
    static func tokens(of scalars: [Unicode.Scalar]) -> [Token] {
        var tokens: [Token] = []
        var closings: [Int]?
        var bracketsClose = true
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
                if bracketsClose {
                    let known = closings ?? ScalarSet.closings(scalars)
                    closings = known
                    if let (set, end) = ScalarSet.bracket(scalars, from: index, closings: known) {
                        tokens.append(.set(set))
                        index = end
                        continue
                    }
                    bracketsClose = false
                }
                tokens.append(.scalar(scalar))
            default:
                tokens.append(.scalar(scalar))
            }
            index += 1
        }
        return tokens
    }
}
