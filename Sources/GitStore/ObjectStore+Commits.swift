package import GitFormat

extension ObjectStore {
    /// The commit `id`, read with ``CommitObject``; with `hashing`, read again and refused
    /// unless it hashes to its id.
    /// - Throws: ``StoreError``: ``StoreError/Kind/notFound`` when it is missing, damage when it
    ///   is not a commit git would write or does not hash to its id.
    package func commit(_ id: OID, verifyingWith hashing: ObjectHasher? = nil) throws -> CommitObject {
        if hashing == nil, let known = parsedCommits[id] { return known }
        let object = try read(id)
        if let hashing { try Self.verify(object, is: id, hashing) }
        return try parsedCommit(id, object)
    }

    /// The commit `id` with its message (everything after its headers), as written.
    /// - Throws: as ``commit(_:verifyingWith:)``.
    package func commitAndMessage(_ id: OID) throws -> (CommitObject, String) {
        let object = try read(id)
        let commit = try parsedCommit(id, object)
        return (commit, String(decoding: object.bytes[commit.messageStart...], as: UTF8.self))
    }

    /// `object` read as the commit `id`, kept in ``parsedCommits``.
    private func parsedCommit(_ id: OID, _ object: ObjectBytes) throws -> CommitObject {
        guard object.type == .commit else { throw StoreError(.damaged, "object \(id.hex) is not a commit") }
        do {
            let commit = try object.bytes.withUnsafeBytes { try CommitObject($0) }
            parsedCommits[id] = commit
            return commit
        } catch let error as FormatError {
            throw StoreError(.damaged, "commit \(id.hex) is damaged: \(error.description)")
        }
    }

    /// The root tree of the commit `id`.
    /// - Throws: as ``commit(_:verifyingWith:)``.
    package func treeID(ofCommit id: OID) throws -> OID { try commit(id).tree }

    /// The parents of the commit `id`, first parent first.
    /// - Throws: as ``commit(_:verifyingWith:)``.
    package func parents(ofCommit id: OID) throws -> [OID] { try commit(id).parents }

    /// The commits reachable from `tips` and not from `hidden`, newest first in topological
    /// order (``CommitWalk``), each read hashed with `hashing` when given.
    /// - Throws: as ``commit(_:verifyingWith:)``.
    package func commits(from tips: [OID], hiding hidden: [OID] = [], verifyingWith hashing: ObjectHasher? = nil) throws -> [OID] {
        var walk = CommitWalk(self, verifyingWith: hashing)
        return try walk.commits(from: tips, hiding: hidden)
    }
}

extension StoreError {
    /// A folder's problem told with where it was found: the commit, the folder's path, its id.
    package func found(inFolder path: String, tree: OID, commit: OID) -> StoreError {
        let what = message.hasPrefix("a folder") ? String(message.dropFirst("a folder".count)) : ": \(message)"
        return StoreError(.refusedFolder, "commit \(commit.short): the folder '\(path.isEmpty ? "/" : path)' (tree \(tree.short))\(what)")
    }
}

/// Commits already read, by id: bounded in commits, emptied when full (what a sync asks for
/// again is the few commits it is working on).
package struct CommitMemo {
    private var parsed: [OID: CommitObject] = [:]

    /// The most commits kept (each a few hundred bytes).
    package static let limit = 4096

    /// An empty memo.
    package init() {}

    /// The commit `id`, if it was read since the memo was last emptied.
    package subscript(id: OID) -> CommitObject? {
        get { parsed[id] }
        set {
            if parsed.count >= Self.limit { parsed.removeAll(keepingCapacity: true) }
            parsed[id] = newValue
        }
    }
}
