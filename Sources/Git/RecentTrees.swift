internal import CGit2
internal import GitFormat

/// The folders read last, kept parsed by their owner (a ``Repository``), most recent first.
///
/// Walking a history compares each commit's folders with its parent's, so a folder read as the
/// new side of one comparison is the old side of the next; and the head's folders are read
/// again for every document looked up. libgit2's own cache drops objects in no useful order
/// and never keeps one over its size limit (a flat folder of 100,000 documents is a 4 MB
/// tree), so without this a wide folder is read, inflated and parsed again each time.
final class RecentTrees {
    private var trees: [(id: OID, tree: OpaquePointer, bytes: Int)] = []
    private var bytes = 0
    /// The most bytes (estimated from entry counts) kept beyond the newest few folders.
    let limit: Int
    /// The most bytes kept in any case, the newest few folders included; a folder larger than
    /// this is not kept at all (a folder of 600,000 documents).
    var hardLimit: Int { limit * 8 }
    /// How many of the newest folders are always kept: a comparison's two sides, and the head's,
    /// the merge's and each contending version's when a resolve looks its documents up in them.
    static let alwaysKept = 6

    init(limit: Int) { self.limit = limit }

    deinit { removeAll() }

    /// A new reference to the folder `id` when it is kept (the caller frees it), else nil.
    func tree(_ id: OID) -> OpaquePointer? {
        guard let index = trees.firstIndex(where: { $0.id == id }) else { return nil }
        let found = trees.remove(at: index)
        trees.insert(found, at: 0)
        var copy: OpaquePointer?
        guard git_tree_dup(&copy, found.tree) == 0 else { return nil }
        return copy
    }

    /// True when the folder `id` is kept.
    func contains(_ id: OID) -> Bool { trees.contains { $0.id == id } }

    /// Keeps a reference to `tree` (a new one: the caller keeps its own).
    func keep(_ id: OID, _ tree: OpaquePointer) {
        let size = Int(git_tree_entrycount(tree)) * 48 + 256
        guard size <= hardLimit else { return }
        var copy: OpaquePointer?
        guard git_tree_dup(&copy, tree) == 0, let copy else { return }
        trees.insert((id, copy, size), at: 0)
        bytes += size
        while bytes > limit && trees.count > Self.alwaysKept || bytes > hardLimit && trees.count > 1 {
            let oldest = trees.removeLast()
            bytes -= oldest.bytes
            git_tree_free(oldest.tree)
        }
    }

    /// Frees every folder kept (before the repository that owns them is freed).
    func removeAll() {
        for kept in trees { git_tree_free(kept.tree) }
        trees = []
        bytes = 0
    }
}
