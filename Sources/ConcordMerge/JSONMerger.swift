internal import GitFormat

/// The structural three-way merge of two JSON values against their common ancestor.
///
/// Objects merge member by member, recursively; arrays of objects that carry an id merge element
/// by element, by id; other arrays merge three-way by element (see `JSONMerger+Arrays.swift`);
/// anything else changed on both sides to different values is a conflict, settled by
/// `latestSide` when one is given.
struct JSONMerger {
    enum Side {
        case ours
        case theirs
    }

    /// A conflict at a path, relative to the value being merged.
    struct Conflict {
        var path: JSONPath
        var ours: JSONValue?
        var theirs: JSONValue?
    }

    /// Member names that identify the objects of an array, in order of preference.
    var idKeys: [String]
    /// The side whose value settles a conflict; nil to report conflicts.
    var latestSide: Side?
    /// True when ours comes before theirs in canonical order: its appended elements go first.
    var oursFirst: Bool

    /// The merged value (nil: absent) and the conflicts found. On a conflict that is not settled,
    /// the value holds our side's value where we have one, else theirs.
    func merge(base: JSONValue?, ours: JSONValue?, theirs: JSONValue?) -> (value: JSONValue?, conflicts: [Conflict]) {
        if JSONMerger.identical(ours, theirs) { return (ours, []) }
        if JSONMerger.identical(base, ours) { return (theirs, []) }
        if JSONMerger.identical(base, theirs) { return (ours, []) }
        switch (ours, theirs) {
        case let (.object(oursMembers)?, .object(theirsMembers)?):
            var baseMembers: [JSONMember] = []
            if case let .object(members)? = base { baseMembers = members }
            let sorted = JSONMerger.isSorted(oursMembers.map(\.key)) && JSONMerger.isSorted(theirsMembers.map(\.key))
            let (entries, conflicts) = mergeKeyed(
                base: baseMembers.map { (ExactText($0.key), $0.value) },
                ours: oursMembers.map { (ExactText($0.key), $0.value) },
                theirs: theirsMembers.map { (ExactText($0.key), $0.value) },
                sortedKeys: sorted
            ) { key, _ in .key(key.value) }
            let members = JSONMerger.followingLockstepBumps(entries, base: baseMembers, ours: oursMembers, theirs: theirsMembers)
            return (.object(members), conflicts)
        case let (.array(oursElements)?, .array(theirsElements)?):
            var baseElements: [JSONValue] = []
            if case let .array(elements)? = base { baseElements = elements }
            if let key = JSONMerger.idKey(in: [baseElements, oursElements, theirsElements], candidates: idKeys) {
                func keyed(_ elements: [JSONValue]) -> [(JSONValue, JSONValue)] {
                    elements.map { ($0[key] ?? .null, $0) }
                }
                let (entries, conflicts) = mergeKeyed(
                    base: keyed(baseElements), ours: keyed(oursElements), theirs: keyed(theirsElements),
                    sortedKeys: false
                ) { _, index in .index(index) }
                return (.array(entries.map(\.1)), conflicts)
            }
            if let (merged, conflicts) = mergeArrays(base: baseElements, ours: oursElements, theirs: theirsElements) {
                return (.array(merged), conflicts)
            }
            return conflict(ours: ours, theirs: theirs)
        default:
            return conflict(ours: ours, theirs: theirs)
        }
    }

    private func conflict(ours: JSONValue?, theirs: JSONValue?) -> (value: JSONValue?, conflicts: [Conflict]) {
        switch latestSide {
        case .ours?: (ours, [])
        case .theirs?: (theirs, [])
        case nil: (ours ?? theirs, [Conflict(path: JSONPath(), ours: ours, theirs: theirs)])
        }
    }

    /// Merges two keyed sequences (object members, or array elements by id). Our order is kept,
    /// unless only theirs moved entries (a move is a change too): then theirs is kept. Entries
    /// only the other side has go at their sorted place when every key list is sorted, else right
    /// after the entry that precedes them on their side.
    private func mergeKeyed<Key: Hashable>(
        base: [(Key, JSONValue)], ours: [(Key, JSONValue)], theirs: [(Key, JSONValue)],
        sortedKeys: Bool, component: (Key, Int) -> JSONPath.Component
    ) -> (entries: [(Key, JSONValue)], conflicts: [Conflict]) {
        let baseValues = Dictionary(base, uniquingKeysWith: { first, _ in first })
        let oursValues = Dictionary(ours, uniquingKeysWith: { first, _ in first })
        let theirsValues = Dictionary(theirs, uniquingKeysWith: { first, _ in first })
        let (baseKeys, oursKeys, theirsKeys) = (base.map(\.0), ours.map(\.0), theirs.map(\.0))
        let order: [Key]
        if sortedKeys {
            order = JSONMerger.sortedOrder(ours: oursKeys, theirs: theirsKeys, oursFirst: oursFirst)
        } else if JSONMerger.moved(baseKeys, in: theirsKeys), !JSONMerger.moved(baseKeys, in: oursKeys) {
            order = JSONMerger.anchoredOrder(ours: theirsKeys, theirs: oursKeys, oursFirst: !oursFirst)
        } else {
            order = JSONMerger.anchoredOrder(ours: oursKeys, theirs: theirsKeys, oursFirst: oursFirst)
        }
        var entries: [(Key, JSONValue)] = []
        var conflicts: [Conflict] = []
        for key in order {
            let (value, found) = merge(base: baseValues[key], ours: oursValues[key], theirs: theirsValues[key])
            guard let value else { continue }
            let prefix = JSONPath(components: [component(key, entries.count)])
            for var conflict in found {
                conflict.path = conflict.path.prefixed(by: prefix)
                conflicts.append(conflict)
            }
            entries.append((key, value))
        }
        return (entries, conflicts)
    }

    /// True when both are the same JSON with their members in the same order: a member moved is
    /// a change here, though not for `==`.
    private static func identical(_ lhs: JSONValue?, _ rhs: JSONValue?) -> Bool {
        guard lhs == rhs else { return false }
        switch (lhs, rhs) {
        case let (.object(left)?, .object(right)?):
            return left.elementsEqual(right, by: { $0.key.sameBytes(as: $1.key) }) && zip(left, right).allSatisfy { identical($0.value, $1.value) }
        case let (.array(left)?, .array(right)?):
            return zip(left, right).allSatisfy { identical($0, $1) }
        default:
            return true
        }
    }

    /// True when `side` holds the keys it shares with `base` in another order: it moved some.
    private static func moved<Key: Hashable>(_ base: [Key], in side: [Key]) -> Bool {
        let sideKeys = Set(side)
        let baseKeys = Set(base)
        return !base.filter(sideKeys.contains).elementsEqual(side.filter(baseKeys.contains))
    }

    /// Our keys, then each key only theirs has right after the key before it on their side.
    /// Where both sides added keys at the same place, the earlier version's come first.
    private static func anchoredOrder<Key: Hashable>(ours: [Key], theirs: [Key], oursFirst: Bool) -> [Key] {
        let oursKeys = Set(ours)
        let theirsKeys = Set(theirs)
        var runs: [Key?: [Key]] = [:]
        var anchor: Key?
        for key in theirs {
            if oursKeys.contains(key) {
                anchor = key
            } else {
                runs[anchor, default: []].append(key)
            }
        }
        var order: [Key] = []
        var pending = runs[nil] ?? []
        if !oursFirst {
            order.append(contentsOf: pending)
            pending = []
        }
        for key in ours {
            guard theirsKeys.contains(key) else {
                order.append(key)
                continue
            }
            order.append(contentsOf: pending)
            order.append(key)
            pending = runs[key] ?? []
            if !oursFirst {
                order.append(contentsOf: pending)
                pending = []
            }
        }
        order.append(contentsOf: pending)
        return order
    }

    /// Our keys, with each key only theirs has inserted at its sorted place (both lists sorted).
    private static func sortedOrder<Key: Hashable>(ours: [Key], theirs: [Key], oursFirst: Bool) -> [Key] {
        guard let ourStrings = ours as? [ExactText], let theirStrings = theirs as? [ExactText] else {
            return anchoredOrder(ours: ours, theirs: theirs, oursFirst: oursFirst)
        }
        var merged = ourStrings
        let oursKeys = Set(ourStrings)
        for key in theirStrings where !oursKeys.contains(key) {
            let position = merged.firstIndex { key < $0 } ?? merged.count
            merged.insert(key, at: position)
        }
        return merged.compactMap { $0 as? Key }
    }

    private static func isSorted(_ keys: [String]) -> Bool {
        zip(keys, keys.dropFirst()).allSatisfy { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// The member that identifies the elements of every array given: each element an object with
    /// that member holding a string or a number, unique within its array. Nil when none does.
    static func idKey(in arrays: [[JSONValue]], candidates: [String]) -> String? {
        guard arrays.contains(where: { !$0.isEmpty }) else { return nil }
        candidateLoop: for key in candidates {
            for array in arrays {
                var seen: Set<JSONValue> = []
                seen.reserveCapacity(array.count)
                for element in array {
                    switch element[key] {
                    case let id? where id.isIdentifier:
                        guard seen.insert(id).inserted else { continue candidateLoop }
                    default: continue candidateLoop
                    }
                }
            }
            return key
        }
        return nil
    }
}

extension JSONValue {
    fileprivate var isIdentifier: Bool {
        switch self {
        case .string, .number: true
        default: false
        }
    }
}
