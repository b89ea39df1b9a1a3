internal import GitFormat

/// Lockstep versions: when one side moved every member that held a string value to one new value
/// (at least two of them: a monorepo's packages bumped together), a member the other side added
/// with the old value takes the new one, as people merging such branches write it.
extension JSONMerger {
    /// `entries` with each member only one side added, and whose value is a string the other side
    /// bumped in lockstep, written with the bumped value.
    static func followingLockstepBumps(
        _ entries: [(ExactText, JSONValue)], base: [JSONMember], ours: [JSONMember], theirs: [JSONMember]
    ) -> [JSONMember] {
        let baseKeys = Set(base.map { ExactText($0.key) })
        let (oursBumps, theirsBumps) = (lockstepBumps(base: base, side: ours), lockstepBumps(base: base, side: theirs))
        guard !oursBumps.isEmpty || !theirsBumps.isEmpty else { return entries.map { JSONMember(key: $0.0.value, value: $0.1) } }
        let (oursKeys, theirsKeys) = (Set(ours.map { ExactText($0.key) }), Set(theirs.map { ExactText($0.key) }))
        return entries.map { key, value in
            guard !baseKeys.contains(key), case let .string(text) = value else { return JSONMember(key: key.value, value: value) }
            if !oursKeys.contains(key), let bumped = oursBumps[ExactText(text)] { return JSONMember(key: key.value, value: .string(bumped)) }
            if !theirsKeys.contains(key), let bumped = theirsBumps[ExactText(text)] { return JSONMember(key: key.value, value: .string(bumped)) }
            return JSONMember(key: key.value, value: value)
        }
    }

    /// For each string value that at least two members held in `base`, the one value `side` gave
    /// every one of them, when it gave them all the same other value.
    private static func lockstepBumps(base: [JSONMember], side: [JSONMember]) -> [ExactText: String] {
        var sideValues: [ExactText: JSONValue] = [:]
        for member in side { sideValues[ExactText(member.key)] = member.value }
        var holders: [ExactText: [ExactText]] = [:]
        for member in base {
            if case let .string(text) = member.value { holders[ExactText(text), default: []].append(ExactText(member.key)) }
        }
        var bumps: [ExactText: String] = [:]
        for (old, keys) in holders where keys.count >= 2 {
            let new = Set(keys.map { sideValues[$0] })
            guard new.count == 1, case let .string(value)?? = new.first, !value.sameBytes(as: old.value) else { continue }
            bumps[old] = value
        }
        return bumps
    }
}
