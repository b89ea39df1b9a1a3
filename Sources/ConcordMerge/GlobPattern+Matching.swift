extension GlobPattern {
    /// Matches the components against the path's: `**` takes any number of the path's
    /// components (at least one when it ends the pattern), each other component exactly one.
    func matchesComponents(_ names: [[Unicode.Scalar]]) -> Bool {
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
}
