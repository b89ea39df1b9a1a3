/// Arrays without ids merged three-way by element: each side's change is a list of edits (a run
/// of the ancestor's elements replaced by other elements, found by a longest common subsequence),
/// and edits of the two sides apply together unless they touch the same elements.
extension JSONMerger {
    /// One side's change to an array: the ancestor's elements in `range` replaced by `elements`
    /// (an empty range is an insertion before the element at its bound).
    struct ArrayEdit: Equatable {
        var range: Range<Int>
        var elements: [JSONValue]

        /// True when the other side's edit touches elements this one touches: both insert at
        /// the same place, one inserts strictly inside the other's run, or the runs overlap.
        func collides(with other: ArrayEdit) -> Bool {
            switch (range.isEmpty, other.range.isEmpty) {
            case (true, true): range.lowerBound == other.range.lowerBound
            case (true, false): other.range.lowerBound < range.lowerBound && range.lowerBound < other.range.upperBound
            case (false, true): other.collides(with: self)
            case (false, false): range.overlaps(other.range)
            }
        }
    }

    /// The largest number of cells the common-subsequence table may have; larger arrays (after
    /// their common start and end are set aside) count as one value.
    static let maximumDiffCells = 4_000_000

    /// Merges two arrays edited from `base` (see ``JSONMerger``); nil when they are too large
    /// to compare element by element.
    func mergeArrays(base: [JSONValue], ours: [JSONValue], theirs: [JSONValue]) -> (value: [JSONValue], conflicts: [Conflict])? {
        guard let oursEdits = JSONMerger.edits(from: base, to: ours),
            let theirsEdits = JSONMerger.edits(from: base, to: theirs)
        else { return nil }
        var result: [JSONValue] = []
        result.reserveCapacity(max(ours.count, theirs.count))
        var conflicts: [Conflict] = []
        var wholeArrayConflict = false
        let sorted = JSONMerger.sortedStrings(ours) && JSONMerger.sortedStrings(theirs)
        var position = 0
        for cluster in JSONMerger.clusters(ours: oursEdits, theirs: theirsEdits) {
            let lower = cluster.map(\.edit.range.lowerBound).min() ?? position
            let upper = cluster.map(\.edit.range.upperBound).max() ?? position
            result.append(contentsOf: base[position..<lower])
            let baseChunk = Array(base[lower..<upper])
            func chunk(_ side: Side) -> [JSONValue] {
                JSONMerger.apply(cluster.filter { $0.side == side }.map(\.edit), to: baseChunk, offset: lower)
            }
            let (oursChunk, theirsChunk) = (chunk(.ours), chunk(.theirs))
            if oursChunk == theirsChunk || theirsChunk == baseChunk {
                result.append(contentsOf: oursChunk)
            } else if oursChunk == baseChunk {
                result.append(contentsOf: theirsChunk)
            } else if baseChunk.isEmpty {
                result.append(contentsOf: mergeInsertions(ours: oursChunk, theirs: theirsChunk, sorted: sorted))
            } else if let oursSplit = JSONMerger.split(oursChunk, pairingWith: baseChunk),
                let theirsSplit = JSONMerger.split(theirsChunk, pairingWith: baseChunk)
            {
                result.append(contentsOf: mergeInsertions(ours: oursSplit.before, theirs: theirsSplit.before, sorted: sorted))
                for offset in baseChunk.indices {
                    let (value, found) = merge(base: baseChunk[offset], ours: oursSplit.paired[offset], theirs: theirsSplit.paired[offset])
                    let prefix = JSONPath(components: [.index(result.count)])
                    conflicts += found.map { Conflict(path: $0.path.prefixed(by: prefix), ours: $0.ours, theirs: $0.theirs) }
                    result.append(value ?? baseChunk[offset])
                }
                result.append(contentsOf: mergeInsertions(ours: oursSplit.after, theirs: theirsSplit.after, sorted: sorted))
            } else {
                switch latestSide {
                case .ours?: result.append(contentsOf: oursChunk)
                case .theirs?: result.append(contentsOf: theirsChunk)
                case nil:
                    result.append(contentsOf: oursChunk)
                    wholeArrayConflict = true
                }
            }
            position = upper
        }
        result.append(contentsOf: base[position...])
        if latestSide == nil, conflicts.isEmpty, JSONMerger.repeatsNewly(result, base: base, ours: ours, theirs: theirs) {
            wholeArrayConflict = true
        }
        if wholeArrayConflict { return (result, [Conflict(path: JSONPath(), ours: .array(ours), theirs: .array(theirs))]) }
        return (result, conflicts)
    }

    /// Both sides' insertions at one place: in sorted order when both arrays are `sorted`
    /// strings, else the earlier version's first; an element both inserted appears once.
    private func mergeInsertions(ours: [JSONValue], theirs: [JSONValue], sorted: Bool) -> [JSONValue] {
        if sorted {
            return JSONMerger.sortedUnion(ours, theirs)
        }
        let (first, second) = oursFirst ? (ours, theirs) : (theirs, ours)
        var result = first
        var counts: [JSONValue: Int] = [:]
        for element in first { counts[element, default: 0] += 1 }
        for element in second {
            if let count = counts[element], count > 0 {
                counts[element] = count - 1
            } else {
                result.append(element)
            }
        }
        return result
    }

    /// One side's chunk read as the ancestor's elements edited in place, one for one, with
    /// elements inserted before or after them: the chunk itself when it has as many elements as
    /// `base`; else, when it has more, its first (or last) elements when each is an object or
    /// array like the ancestor's element it stands for (see ``resembles(_:_:)``). Nil otherwise.
    private static func split(_ chunk: [JSONValue], pairingWith base: [JSONValue])
        -> (before: [JSONValue], paired: [JSONValue], after: [JSONValue])?
    {
        if chunk.count == base.count { return ([], chunk, []) }
        guard chunk.count > base.count else { return nil }
        let extra = chunk.count - base.count
        let head = Array(chunk.prefix(base.count))
        if zip(base, head).allSatisfy(resembles) { return ([], head, Array(chunk.suffix(extra))) }
        let tail = Array(chunk.suffix(base.count))
        if zip(base, tail).allSatisfy(resembles) { return (Array(chunk.prefix(extra)), tail, []) }
        return nil
    }

    /// True when `edited` can be read as `original` changed: two arrays, or two objects with a
    /// member in common (same name, same value).
    private static func resembles(_ original: JSONValue, _ edited: JSONValue) -> Bool {
        switch (original, edited) {
        case (.array, .array): true
        case let (.object(members), .object):
            members.contains { edited[$0.key] == $0.value }
        default: false
        }
    }

    /// An edit and the side that made it.
    private struct SideEdit {
        var side: Side
        var edit: ArrayEdit
    }

    /// Both sides' edits in order, grouped so that edits that collide share a group.
    private static func clusters(ours: [ArrayEdit], theirs: [ArrayEdit]) -> [[SideEdit]] {
        let all = (ours.map { SideEdit(side: .ours, edit: $0) } + theirs.map { SideEdit(side: .theirs, edit: $0) })
        let sorted = all.enumerated().sorted { lhs, rhs in
            let left = (lhs.element.edit.range.lowerBound, lhs.element.edit.range.isEmpty ? 0 : 1, lhs.offset)
            let right = (rhs.element.edit.range.lowerBound, rhs.element.edit.range.isEmpty ? 0 : 1, rhs.offset)
            return left < right
        }.map(\.element)
        var clusters: [[SideEdit]] = []
        for item in sorted {
            if let last = clusters.last, last.contains(where: { $0.side != item.side && $0.edit.collides(with: item.edit) }) {
                clusters[clusters.count - 1].append(item)
            } else {
                clusters.append([item])
            }
        }
        return clusters
    }

    /// `chunk` (the ancestor's elements from `offset`) with one side's edits applied.
    private static func apply(_ edits: [ArrayEdit], to chunk: [JSONValue], offset: Int) -> [JSONValue] {
        var result: [JSONValue] = []
        var position = 0
        for edit in edits {
            let start = edit.range.lowerBound - offset
            result.append(contentsOf: chunk[position..<start])
            result.append(contentsOf: edit.elements)
            position = edit.range.upperBound - offset
        }
        result.append(contentsOf: chunk[position...])
        return result
    }

    /// True when `merged` holds an element more times than the ancestor and each side do: both
    /// sides added the same element at different places.
    private static func repeatsNewly(_ merged: [JSONValue], base: [JSONValue], ours: [JSONValue], theirs: [JSONValue]) -> Bool {
        func counts(_ elements: [JSONValue]) -> [JSONValue: Int] {
            var counts: [JSONValue: Int] = [:]
            for element in elements { counts[element, default: 0] += 1 }
            return counts
        }
        let (baseCounts, oursCounts, theirsCounts) = (counts(base), counts(ours), counts(theirs))
        return counts(merged).contains { element, count in
            count > 1 && count > max(baseCounts[element] ?? 0, oursCounts[element] ?? 0, theirsCounts[element] ?? 0)
        }
    }

    /// The edits that turn `base` into `side`: the runs between the elements of a longest common
    /// subsequence. Nil when the arrays are too large to compare.
    static func edits(from base: [JSONValue], to side: [JSONValue]) -> [ArrayEdit]? {
        var prefix = 0
        while prefix < base.count, prefix < side.count, base[prefix] == side[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < base.count - prefix, suffix < side.count - prefix,
            base[base.count - 1 - suffix] == side[side.count - 1 - suffix]
        { suffix += 1 }
        let baseMiddle = Array(base[prefix..<(base.count - suffix)])
        let sideMiddle = Array(side[prefix..<(side.count - suffix)])
        if baseMiddle.isEmpty && sideMiddle.isEmpty { return [] }
        guard let pairs = commonSubsequence(baseMiddle, sideMiddle) else { return nil }
        var edits: [ArrayEdit] = []
        var (baseIndex, sideIndex) = (0, 0)
        for (matchedBase, matchedSide) in pairs + [(baseMiddle.count, sideMiddle.count)] {
            if matchedBase > baseIndex || matchedSide > sideIndex {
                edits.append(
                    ArrayEdit(
                        range: (prefix + baseIndex)..<(prefix + matchedBase),
                        elements: Array(sideMiddle[sideIndex..<matchedSide])))
            }
            (baseIndex, sideIndex) = (matchedBase + 1, matchedSide + 1)
        }
        return edits
    }

    /// The index pairs of a longest common subsequence of `lhs` and `rhs`, in order; nil when
    /// the table would be larger than ``maximumDiffCells``.
    private static func commonSubsequence(_ lhs: [JSONValue], _ rhs: [JSONValue]) -> [(Int, Int)]? {
        if lhs.isEmpty || rhs.isEmpty { return [] }
        guard lhs.count * rhs.count <= maximumDiffCells else { return nil }
        var numbers: [JSONValue: Int] = [:]
        for value in lhs where numbers[value] == nil { numbers[value] = numbers.count }
        let left = lhs.map { numbers[$0] ?? -1 }
        let right = rhs.map { numbers[$0] ?? -2 }
        let width = right.count + 1
        var lengths = [Int32](repeating: 0, count: (left.count + 1) * width)
        for i in stride(from: left.count - 1, through: 0, by: -1) {
            for j in stride(from: right.count - 1, through: 0, by: -1) {
                lengths[i * width + j] =
                    left[i] == right[j]
                    ? lengths[(i + 1) * width + j + 1] + 1
                    : max(lengths[(i + 1) * width + j], lengths[i * width + j + 1])
            }
        }
        var pairs: [(Int, Int)] = []
        var (i, j) = (0, 0)
        while i < left.count, j < right.count {
            if left[i] == right[j] {
                pairs.append((i, j))
                (i, j) = (i + 1, j + 1)
            } else if lengths[(i + 1) * width + j] >= lengths[i * width + j + 1] {
                i += 1
            } else {
                j += 1
            }
        }
        return pairs
    }

    private static func sortedStrings(_ elements: [JSONValue]) -> Bool {
        var previous: String?
        for element in elements {
            guard case let .string(text) = element else { return false }
            if let previous, text.utf8.lexicographicallyPrecedes(previous.utf8) { return false }
            previous = text
        }
        return true
    }

    /// Two sorted lists of strings as one sorted list; a string in both appears once.
    private static func sortedUnion(_ lhs: [JSONValue], _ rhs: [JSONValue]) -> [JSONValue] {
        func text(_ value: JSONValue) -> String { if case let .string(text) = value { text } else { "" } }
        var result: [JSONValue] = []
        var left = 0
        var right = 0
        while left < lhs.count || right < rhs.count {
            if right == rhs.count || (left < lhs.count && !text(rhs[right]).utf8.lexicographicallyPrecedes(text(lhs[left]).utf8)) {
                if right < rhs.count, lhs[left] == rhs[right] { right += 1 }
                result.append(lhs[left])
                left += 1
            } else {
                result.append(rhs[right])
                right += 1
            }
        }
        return result
    }
}
