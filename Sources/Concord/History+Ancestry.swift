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
