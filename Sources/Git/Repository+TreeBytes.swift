internal import CGit2
internal import GitFormat
internal import GitStore

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
        guard object.type == .tree else {
            throw GitError(
                code: GIT_ENOTFOUND.rawValue, errorClass: Int32(GIT_ERROR_OBJECT.rawValue),
                message: "object \(id.hex) is not a folder (a tree)", function: "git_odb_read")
        }
        return object.bytes
    }

    /// The tree read from the pack entry that stores it, with that entry as read (none when the
    /// bytes were kept from a recent read); nil when it cannot be read that way, or the object
    /// is not a tree (then libgit2 reads it, and reports what is wrong). Sizes are checked
    /// against ``largestObject`` before anything is inflated or rebuilt.
    func storedTree(_ id: OID, depth: Int = 0) -> ObjectBytes? {
        if let kept = recentTreeBytes[id] { return ObjectBytes(type: .tree, bytes: kept) }
        guard depth <= PackWriter.deepest, let (pack, entry) = storedPacks.locate(id), let header = try? pack.header(of: entry) else { return nil }
        let tree: ObjectBytes
        if let base = header.base {
            guard let baseBytes = storedTree(base, depth: depth + 1)?.bytes,
                let delta = try? pack.contents(entry, header: header, largest: largestObject + PackWriter.deltaOverhead),
                let target = delta.data.withUnsafeBytes({ instructions in
                    baseBytes.withUnsafeBytes { Delta.apply(instructions, to: $0, largest: largestObject) }
                })
            else { return nil }
            tree = ObjectBytes(type: .tree, bytes: target, stored: .init(stream: delta.stream, delta: (base, baseBytes, delta.data)))
        } else {
            guard header.type == 2, let whole = try? pack.contents(entry, header: header, largest: largestObject) else { return nil }
            tree = ObjectBytes(type: .tree, bytes: whole.data, stored: .init(stream: whole.stream))
        }
        recentTreeBytes.keep(id, tree.bytes)
        return tree
    }
}
