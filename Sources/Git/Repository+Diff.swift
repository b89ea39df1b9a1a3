internal import CGit2

/// One path that differs between two trees: what was there before and what is there after.
public struct TreeChange: Sendable, Equatable {
    /// The slash-separated path of a file (or symlink) that changed.
    public var path: String
    /// The entry before; nil when the path was added.
    public var old: TreeEntry?
    /// The entry after; nil when the path was removed.
    public var new: TreeEntry?
}

extension Repository {
    /// The files that differ between two trees (nil is the empty tree), sorted by path. Folders
    /// whose ids are equal are skipped without being read, so the cost follows what changed, not
    /// the size of the trees. (libgit2 1.5's `git_diff_tree_to_tree` reads every folder.) No
    /// rename detection; a file replaced by a folder is a removal plus additions.
    /// - Throws: ``GitError`` when a tree cannot be read.
    public func diff(_ old: OID?, _ new: OID?) throws -> [TreeChange] {
        var changes: [TreeChange] = []
        try compare(old, new, prefix: "", into: &changes)
        return changes.sorted { $0.path < $1.path }
    }

    private func compare(_ old: OID?, _ new: OID?, prefix: String, into changes: inout [TreeChange]) throws {
        guard old != new else { return }
        var before = Dictionary(try old.map(entries(ofTree:)) ?? [], uniquingKeysWith: { first, _ in first }, keyedBy: \.name)
        for entry in try new.map(entries(ofTree:)) ?? [] {
            let path = prefix + entry.name
            let previous = before.removeValue(forKey: entry.name)
            if let previous, previous.id == entry.id, previous.mode == entry.mode { continue }
            let wasTree = previous?.kind == .tree, isTree = entry.kind == .tree
            if wasTree || isTree {
                try compare(wasTree ? previous?.id : nil, isTree ? entry.id : nil, prefix: path + "/", into: &changes)
            }
            if !isTree || (previous != nil && !wasTree) {
                changes.append(TreeChange(path: path, old: wasTree ? nil : previous, new: isTree ? nil : entry))
            }
        }
        for entry in before.values {
            let path = prefix + entry.name
            if entry.kind == .tree {
                try compare(entry.id, nil, prefix: path + "/", into: &changes)
            } else {
                changes.append(TreeChange(path: path, old: entry, new: nil))
            }
        }
    }
}

extension Dictionary {
    init<S: Sequence>(_ values: S, uniquingKeysWith combine: (Value, Value) -> Value, keyedBy key: (Value) -> Key) where S.Element == Value {
        self.init(values.map { (key($0), $0) }, uniquingKeysWith: combine)
    }
}
