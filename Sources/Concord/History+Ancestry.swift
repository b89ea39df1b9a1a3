internal import ConcordMerge
internal import Git
internal import GitFormat

extension History {
    /// True when `commit` descends from `ancestor` (a commit does not descend from itself): git's
    /// `merge-base --is-ancestor`, over the commits this history has read. Both sides are painted
    /// down their parents, newest committer date first, until `ancestor` is reached from
    /// `commit` or every commit still queued is reachable from both (below them nothing can reach
    /// it). Dates order the walk, they do not decide it: a skewed clock costs commits, not the
    /// answer. libgit2's walk reads each commit again for each question; this one reads it once.
    func descends(_ commit: OID, from ancestor: OID) throws -> Bool {
        guard commit != ancestor else { return false }
        let fromCommit: UInt8 = 1, fromAncestor: UInt8 = 2, fromBoth: UInt8 = 3
        var paint: [OID: UInt8] = [commit: fromCommit, ancestor: fromAncestor]
        var queue: [(time: Double, id: OID)] = []
        func node(_ id: OID) throws -> HistoryCache.Node { try cache.node(id, entry: known) }
        func enqueue(_ id: OID) throws {
            let time = try node(id).time
            let place = queue.partitioningIndex { $0.time > time }
            queue.insert((time, id), at: place)
        }
        try enqueue(commit)
        try enqueue(ancestor)
        while queue.contains(where: { paint[$0.id] != fromBoth }) {
            let next = queue.removeLast().id
            let flags = paint[next] ?? 0
            for parent in try node(next).parents {
                let old = paint[parent] ?? 0
                guard old | flags != old else { continue }
                // Only what descends from it has it as a parent, and that is painted from `commit`.
                if parent == ancestor { return true }
                paint[parent] = old | flags
                try enqueue(parent)
            }
        }
        return false
    }
}

extension History {
    /// The version of `document` with the greatest clock that is in the line of edits of every
    /// one of `versions` (each is in its own line; a line goes back through
    /// ``previousVersions(of:document:parentEntry:)``): the base a merge of them starts from.
    ///
    /// Graph ancestry cannot tell it once one of them was saved after an integration: every later
    /// commit descends from both sides, so git's merge base is the version that lost, and a merge
    /// from it would drop that version's changes. The lines are walked together, greatest clock
    /// first (a version's clock follows those it replaced), so the first version reached from
    /// all of them is the answer. Nil when their lines share no version, when more than 64
    /// versions are given, or after `limit` versions read; the caller then takes git's merge base.
    func commonPreviousVersion(of versions: [OID], document: DocumentPath, limit: Int = 100_000) throws -> OID? {
        guard !versions.isEmpty, versions.count <= 64 else { return nil }
        let all: UInt64 = versions.count == 64 ? .max : (1 << UInt64(versions.count)) - 1
        var reached: [OID: UInt64] = [:]
        var queue: [(rank: LatestWins.Rank, id: OID)] = []
        func enqueue(_ id: OID) throws {
            let rank = try rank(of: id)
            queue.insert((rank, id), at: queue.partitioningIndex { $0.rank > rank })
        }
        for (index, version) in versions.enumerated() {
            let old = reached[version] ?? 0
            reached[version] = old | (1 << UInt64(index))
            if old == 0 { try enqueue(version) }
        }
        var read = 0
        while let next = queue.popLast() {
            let mask = reached[next.id] ?? 0
            if mask == all { return next.id }
            read += 1
            guard read <= limit else { return nil }
            for previous in try previousVersions(of: next.id, document: document) {
                let old = reached[previous] ?? 0
                guard old | mask != old else { continue }
                reached[previous] = old | mask
                if old == 0 { try enqueue(previous) }
            }
        }
        return nil
    }
}

extension Array {
    /// The first index whose element `belongsAfter` accepts, for an array in which every element it
    /// accepts comes after every element it does not (a binary search).
    fileprivate func partitioningIndex(where belongsAfter: (Element) -> Bool) -> Int {
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            if belongsAfter(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
