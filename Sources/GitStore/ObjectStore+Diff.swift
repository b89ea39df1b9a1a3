public import GitFormat

/// One path that differs between two trees: what was there before and what is there after.
public struct TreeChange: Sendable, Equatable {
    /// The slash-separated path of a file (or symlink) that changed.
    public var path: String
    /// The entry before; nil when the path was added.
    public var old: TreeEntry?
    /// The entry after; nil when the path was removed.
    public var new: TreeEntry?
}

extension ObjectStore {
    /// The files that differ between two trees (nil is the empty tree), sorted by path. Folders
    /// whose ids are equal are skipped without being read, so the cost follows what changed, not
    /// the size of the trees. (libgit2 1.5's `git_diff_tree_to_tree` reads every folder.) No
    /// rename detection; a file replaced by a folder is a removal plus additions.
    /// - Throws: ``StoreError`` when a tree cannot be read.
    package func diff(_ old: OID?, _ new: OID?) throws -> [TreeChange] {
        try diff(old, new, limit: .max)!
    }

    /// The files that differ between two trees, as ``diff(_:_:)``, or nil as soon as more than
    /// `limit` differ (without reading further).
    package func diff(_ old: OID?, _ new: OID?, limit: Int) throws -> [TreeChange]? {
        var changes: [TreeChange] = []
        try compare(old, new, prefix: "", into: &changes, limit: limit)
        return changes.count > limit ? nil : changes.sorted { $0.path < $1.path }
    }

    private func compare(_ old: OID?, _ new: OID?, prefix: String, into changes: inout [TreeChange], limit: Int) throws {
        guard old != new, changes.count <= limit else { return }
        try forEachDifference(old, new) { previous, entry in
            let path = prefix + (entry ?? previous)!.name
            let wasTree = previous?.kind == .tree, isTree = entry?.kind == .tree
            if wasTree || isTree {
                try compare(wasTree ? previous?.id : nil, isTree ? entry?.id : nil, prefix: path + "/", into: &changes, limit: limit)
            }
            if (previous != nil && !wasTree) || (entry != nil && !isTree) {
                changes.append(TreeChange(path: path, old: wasTree ? nil : previous, new: isTree ? nil : entry))
            }
        }
    }

    /// Calls `body` with each pair of entries, one from each tree (nil is the empty tree), that
    /// differ: same name with another id or mode, or present on one side only (a name that is
    /// a file on one side and a folder on the other comes as two pairs). Compares the two
    /// folders' stored bytes (``RawTree/differences(_:_:)``, read through ``treeBytes(_:)``)
    /// and copies out only the entries that differ, so comparing two large folders that differ
    /// in a few entries costs little; and a small difference is kept (``DifferenceMemo``), since
    /// a sync compares the same folders several times (checking what arrived, indexing the
    /// history, integrating, sending). A `new` folder whose entries are out of git's order is
    /// refused.
    /// - Throws: ``StoreError`` when a tree cannot be read or is malformed, or what `body` throws.
    package func forEachDifference(_ old: OID?, _ new: OID?, _ body: (TreeEntry?, TreeEntry?) throws -> Void) throws {
        if let known = differences[old, new] {
            for (first, second) in known { try body(first, second) }
            return
        }
        let (oldBytes, newBytes) = (try old.map(treeBytes) ?? [], try new.map(treeBytes) ?? [])
        let found = try readingFormat { try RawTree.differences(oldBytes, newBytes) }
        differences[old, new] = found
        for (first, second) in found { try body(first, second) }
    }
}

/// Differences between pairs of trees already computed, kept when they are small: bounded in
/// pairs and entries, emptied when full (a sync compares each commit's folders with its
/// parent's a few times in a row, so recent pairs are what is asked for again).
package struct DifferenceMemo {
    /// Nothing kept.
    package init() {}

    private struct Pair: Hashable {
        var old: OID?
        var new: OID?
    }
    /// The largest difference kept, in entries.
    static let largestKept = 64
    /// The most entries kept in all.
    static let entryLimit = 200_000
    private var kept: [Pair: [(TreeEntry?, TreeEntry?)]] = [:]
    private var entries = 0

    package subscript(old: OID?, new: OID?) -> [(TreeEntry?, TreeEntry?)]? {
        get { kept[Pair(old: old, new: new)] }
        set {
            guard let newValue, newValue.count <= Self.largestKept else { return }
            if entries + newValue.count > Self.entryLimit {
                kept = [:]
                entries = 0
            }
            kept[Pair(old: old, new: new)] = newValue
            entries += newValue.count
        }
    }
}
