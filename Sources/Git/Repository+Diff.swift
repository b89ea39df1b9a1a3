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
    /// The files that differ between two trees (nil is the empty tree), compared by id so
    /// that identical folders are skipped whole: cost follows what changed, not the size.
    /// No rename detection; a type change is reported as one change.
    /// - Throws: ``GitError`` when a tree cannot be read.
    public func diff(_ old: OID?, _ new: OID?) throws -> [TreeChange] {
        let oldTree = try old.map(lookupTree) ?? nil
        defer { git_tree_free(oldTree) }
        let newTree = try new.map(lookupTree) ?? nil
        defer { git_tree_free(newTree) }
        var options = git_diff_options()
        try check("git_diff_options_init", git_diff_options_init(&options, UInt32(GIT_DIFF_OPTIONS_VERSION)))
        options.flags = GIT_DIFF_IGNORE_SUBMODULES.rawValue
        var diff: OpaquePointer?
        try check("git_diff_tree_to_tree", git_diff_tree_to_tree(&diff, pointer, oldTree, newTree, &options))
        defer { git_diff_free(diff) }
        let count = git_diff_num_deltas(diff)
        var changes: [TreeChange] = []
        changes.reserveCapacity(count)
        for index in 0..<count {
            guard let delta = git_diff_get_delta(diff, index)?.pointee else { continue }
            let path = String(cString: delta.new_file.path ?? delta.old_file.path)
            let oldEntry = delta.status == GIT_DELTA_ADDED ? nil : TreeEntry(file: delta.old_file)
            let newEntry = delta.status == GIT_DELTA_DELETED ? nil : TreeEntry(file: delta.new_file)
            changes.append(TreeChange(path: path, old: oldEntry, new: newEntry))
        }
        return changes
    }
}

extension TreeEntry {
    init(file: git_diff_file) {
        let path = String(cString: file.path)
        self.init(name: String(path.split(separator: "/").last ?? Substring(path)), id: OID(file.id), mode: UInt32(file.mode))
    }
}
