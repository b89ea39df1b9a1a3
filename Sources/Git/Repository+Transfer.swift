internal import CGit2

extension Repository {
    /// Copies into `destination` every object of the commits reachable from `tips` and not from
    /// `known` (commits the destination already has), as one pack. For each commit it follows
    /// only the folders that differ from its parents', so the cost follows what changed, not
    /// the size of the trees (libgit2's pack building for fetch and push reads every folder of
    /// the known commits). Both repositories must be on this machine.
    /// - Returns: the number of objects copied.
    /// - Throws: ``GitError`` when an object cannot be read or the pack cannot be stored.
    @discardableResult
    public func copyObjects(to destination: Repository, from tips: [OID], hiding known: [OID]) throws -> Int {
        var database: OpaquePointer?
        try check("git_repository_odb", git_repository_odb(&database, destination.pointer))
        defer { git_odb_free(database) }
        let count = try withPackOfChanges(
            from: tips, hiding: known,
            skipping: { id in
                var raw = id.raw
                return git_odb_exists_ext(database, &raw, UInt32(GIT_ODB_LOOKUP_NO_REFRESH.rawValue)) == 1
            }
        ) { pack, count in
            guard count > 0 else { return 0 }
            try check("git_odb_write_pack", concord_odb_write_pack(database, pack.baseAddress, pack.count))
            CrashPoint.reach("objects:copied")
            try check("git_odb_refresh", git_odb_refresh(database))
            return count
        }
        return count
    }

    /// Builds one pack of the objects of the commits reachable from `tips` and not from `known`:
    /// each commit, and the folders and files of its tree that differ from its parents' trees
    /// (objects for which `skip` is true are left out, with what is below them), then calls
    /// `body` with the pack's bytes (valid during the call) and its number of objects. Cost
    /// follows what changed, not the size of the trees.
    /// - Throws: ``GitError`` when an object cannot be read or the pack cannot be built.
    func withPackOfChanges<T>(
        from tips: [OID], hiding known: [OID], skipping skip: (OID) -> Bool = { _ in false },
        _ body: (UnsafeRawBufferPointer, Int) throws -> T
    ) throws -> T {
        var commits: [OID] = []
        try walk(from: tips, hiding: known.filter(contains)) { id in
            commits.append(id)
            return true
        }
        var builder: OpaquePointer?
        try check("git_packbuilder_new", git_packbuilder_new(&builder, pointer))
        defer { git_packbuilder_free(builder) }
        git_packbuilder_set_threads(builder, 0)
        var inserted = Set<OID>()
        func insert(_ id: OID) throws {
            guard inserted.insert(id).inserted else { return }
            var raw = id.raw
            try check("git_packbuilder_insert", git_packbuilder_insert(builder, &raw, nil))
        }
        func addTree(_ tree: OID, against old: [OID]) throws {
            guard !old.contains(tree), !inserted.contains(tree), !skip(tree) else { return }
            try insert(tree)
            try forEachDifference(old.first, tree) { first, entry in
                guard let entry, entry.kind != .commit else { return }
                // A merge's other parents: an entry one of them already has is not new either.
                let previous = try old.dropFirst().compactMap { try child(Substring(entry.name), of: $0) }
                if previous.contains(where: { $0.id == entry.id }) { return }
                if entry.kind == .tree {
                    try addTree(entry.id, against: ([first].compactMap { $0 } + previous).filter { $0.kind == .tree }.map(\.id))
                } else if !skip(entry.id) {
                    try insert(entry.id)
                }
            }
        }
        for commit in commits.reversed() {
            try insert(commit)
            let parentTrees = try parents(ofCommit: commit).map(treeID(ofCommit:))
            try addTree(treeID(ofCommit: commit), against: parentTrees)
        }
        var buffer = git_buf()
        defer { git_buf_dispose(&buffer) }
        try check("git_packbuilder_write_buf", git_packbuilder_write_buf(&buffer, builder))
        return try body(UnsafeRawBufferPointer(start: buffer.ptr, count: buffer.size), inserted.count)
    }
}
