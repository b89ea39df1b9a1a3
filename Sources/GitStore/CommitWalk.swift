package import GitFormat

/// The commits reachable from some tips and not from others, read by the store itself (each
/// commit's parents and committer time through ``CommitObject``), in the order libgit2's
/// revision walk gives with `GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME`: a commit before its
/// parents, and among the commits whose children are all out, the newest first.
///
/// It walks as libgit2 1.5 does (`revwalk.c`): newest first along a list kept in date order,
/// marking what the hidden commits reach, and stopping once everything left is hidden and older
/// than the last commit kept (give or take five commits, for clocks that went back). So its cost
/// follows the commits between the tips and the hidden ones, not the length of the history.
/// A commit found hidden only after it was kept (a clock far off) is left out at the end.
package struct CommitWalk {
    private final class Node {
        let id: OID
        var time: Int64 = 0
        /// Nil until the commit is read.
        var parents: [Parent]?
        var seen = false
        var hidden = false
        var added = false
        var inDegree = 0

        init(_ id: OID) { self.id = id }
    }

    /// A commit's parent, not kept alive by it: ``nodes`` holds every node. Freeing a line of
    /// nodes that each held their parents was a chain of releases as deep as the history (a
    /// clone of 200,000 commits in a line overflowed its thread's stack).
    private struct Parent {
        unowned let node: Node
    }

    private let store: ObjectStore
    private let hashing: ObjectStore.ObjectHasher?
    private var nodes: [OID: Node] = [:]

    /// How many hidden commits are read past the last one kept, once only hidden ones are left.
    private static let slop = 5

    /// A walk over the commits of `store`, each commit read hashed with `hashing` (when given)
    /// and refused unless it hashes to its id: a cloud's, before anything is taken from it.
    package init(_ store: ObjectStore, verifyingWith hashing: ObjectStore.ObjectHasher? = nil) {
        self.store = store
        self.hashing = hashing
    }

    /// The commits reachable from `tips` and not from `hidden`, newest first in topological
    /// order. Hidden commits the store does not hold are ignored (they hide nothing).
    /// - Throws: ``StoreError`` when a commit is missing or is not a commit git would write.
    package mutating func commits(from tips: [OID], hiding hidden: [OID]) throws -> [OID] {
        var input: [Node] = []
        for (id, hide) in tips.map({ ($0, false) }) + hidden.filter(store.contains).map({ ($0, true) }) {
            let node = self.node(id)
            guard !node.hidden else { continue }
            node.hidden = hide
            input.append(node)
        }
        guard input.contains(where: { !$0.hidden }) else { return [] }
        var start: [Node] = []
        for node in input {
            try parse(node)
            if node.hidden { markParentsHidden(node) }
            if !node.seen {
                node.seen = true
                start.append(node)
            }
        }
        return try sortedTopologically(limited(start)).filter { !$0.hidden }.map(\.id)
    }

    // MARK: Pieces

    private mutating func node(_ id: OID) -> Node {
        if let known = nodes[id] { return known }
        let made = Node(id)
        nodes[id] = made
        return made
    }

    /// Reads `node`'s commit: its parents and its committer's time.
    private mutating func parse(_ node: Node) throws {
        guard node.parents == nil else { return }
        let commit = try store.commit(node.id, verifyingWith: hashing)
        node.time = commit.committer.time
        node.parents = commit.parents.map { Parent(node: self.node($0)) }
    }

    /// Marks hidden what the read commits below `node` reach (without reading more).
    private func markParentsHidden(_ node: Node) {
        var pending = node.parents ?? []
        while let next = pending.popLast() {
            var current: Node? = next.node
            while let commit = current, !commit.hidden {
                commit.hidden = true
                guard let parents = commit.parents else { break }
                pending.append(contentsOf: parents)
                current = parents.first?.node
            }
        }
    }

    /// The commits waiting to be met, newest first: stored front last, so that taking the front
    /// costs nothing.
    private struct DateList {
        var reversed: [Node]

        var front: Node? { reversed.last }

        mutating func popFront() -> Node? { reversed.popLast() }

        /// Inserts `node` after the commits at least as new.
        mutating func insert(_ node: Node) {
            var at = reversed.count
            while at > 0, reversed[at - 1].time >= node.time { at -= 1 }
            reversed.insert(node, at: at)
        }
    }

    /// Queues `node`'s parents, read: all of them when it is hidden (hiding what they reach),
    /// else those not queued yet.
    private mutating func addParents(of node: Node, to list: inout DateList) throws {
        guard !node.added else { return }
        node.added = true
        for parent in (node.parents ?? []).map(\.node) {
            if node.hidden { parent.hidden = true }
            try parse(parent)
            if node.hidden {
                markParentsHidden(parent)
                parent.seen = true
                list.insert(parent)
            } else if !parent.seen {
                parent.seen = true
                list.insert(parent)
            }
        }
    }

    /// The commits kept, in the order met, starting from `start` in its order.
    private mutating func limited(_ start: [Node]) throws -> [Node] {
        var list = DateList(reversed: start.reversed())
        var kept: [Node] = []
        var slop = Self.slop
        var time = Int64.max
        while let node = list.popFront() {
            try addParents(of: node, to: &list)
            if node.hidden {
                markParentsHidden(node)
                slop = Self.stillInteresting(list, time: time, slop: slop)
                if slop > 0 { continue }
                break
            }
            time = node.time
            kept.append(node)
        }
        return kept
    }

    private static func stillInteresting(_ list: DateList, time: Int64, slop: Int) -> Int {
        guard let front = list.front else { return 0 }
        if time <= front.time { return Self.slop }
        if list.reversed.contains(where: { !$0.hidden || $0.time > time }) { return Self.slop }
        return slop - 1
    }

    /// `list` with every commit after all of its children in it, the newest of those ready first.
    private func sortedTopologically(_ list: [Node]) -> [Node] {
        for node in list { node.inDegree = 1 }
        for node in list {
            for parent in (node.parents ?? []).map(\.node) where parent.inDegree > 0 { parent.inDegree += 1 }
        }
        var queue = NewestFirst()
        for node in list where node.inDegree == 1 { queue.insert(node) }
        var sorted: [Node] = []
        sorted.reserveCapacity(list.count)
        while let next = queue.pop() {
            for parent in (next.parents ?? []).map(\.node) where parent.inDegree > 0 {
                parent.inDegree -= 1
                if parent.inDegree == 1 { queue.insert(parent) }
            }
            next.inDegree = 0
            sorted.append(next)
        }
        return sorted
    }

    /// A binary heap of commits, the newest on top, that breaks ties as libgit2's `git_pqueue` does.
    private struct NewestFirst {
        private var heap: [Node] = []

        private static func after(_ a: Node, _ b: Node) -> Bool { a.time < b.time }

        mutating func insert(_ node: Node) {
            heap.append(node)
            var at = heap.count - 1
            while at > 0 {
                let parent = (at - 1) / 2
                guard Self.after(heap[parent], node) else { break }
                heap[at] = heap[parent]
                at = parent
            }
            heap[at] = node
        }

        mutating func pop() -> Node? {
            guard let top = heap.first else { return nil }
            let last = heap.removeLast()
            guard !heap.isEmpty else { return top }
            var at = 0
            while true {
                var kid = 2 * at + 1
                guard kid < heap.count else { break }
                if kid + 1 < heap.count, Self.after(heap[kid], heap[kid + 1]) { kid += 1 }
                guard Self.after(last, heap[kid]) else { break }
                heap[at] = heap[kid]
                at = kid
            }
            heap[at] = last
            return top
        }
    }
}
