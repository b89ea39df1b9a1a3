internal import CGit2

extension Repository {
    /// The bytes of the tree `id` as git stores them (``RawTree``). A folder stored in a pack as
    /// a delta is rebuilt from its base's bytes when those were read recently (kept in
    /// ``RecentTreeBytes``), applying that one delta, instead of from the whole copy at the
    /// start of its chain, as libgit2 does for any base over 1 MB. Anything else (a loose
    /// folder, one in memory, a pack entry that cannot be read this way) is read through libgit2.
    /// - Throws: ``GitError`` when the object is missing, damaged or not a tree.
    func treeBytes(_ id: OID) throws -> [UInt8] {
        var database: OpaquePointer?
        try check("git_repository_odb", git_repository_odb(&database, pointer))
        defer { git_odb_free(database) }
        let object = try readObject(id, from: database)
        guard object.type == GIT_OBJECT_TREE else {
            throw GitError(
                code: GIT_ENOTFOUND.rawValue, errorClass: Int32(GIT_ERROR_OBJECT.rawValue),
                message: "object \(id.hex) is not a folder (a tree)", function: "git_odb_read")
        }
        recentTreeBytes.keep(id, object.bytes)
        return object.bytes
    }

    /// The tree's bytes read from the pack entry that stores it; nil when they cannot be read
    /// that way, or the object is not a tree (then libgit2 reads it, and reports what is wrong).
    func storedTreeBytes(_ id: OID, depth: Int = 0) -> [UInt8]? {
        if let kept = recentTreeBytes[id] { return kept }
        guard depth <= PackWriter.deepest, let (pack, entry) = storedPacks.locate(id), let header = try? pack.header(of: entry) else { return nil }
        var bytes: [UInt8]
        if let base = header.base {
            guard let baseBytes = storedTreeBytes(base, depth: depth + 1), let delta = try? pack.inflated(entry, header: header),
                let target = delta.withUnsafeBytes({ delta in baseBytes.withUnsafeBytes { Delta.apply(delta, to: $0) } })
            else { return nil }
            bytes = target
        } else {
            guard header.type == 2, let whole = try? pack.inflated(entry, header: header) else { return nil }
            bytes = whole
        }
        recentTreeBytes.keep(id, bytes)
        return bytes
    }
}
