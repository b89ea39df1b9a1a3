internal import CGit2
internal import FoundationEssentials
internal import Glibc
public import GitFormat
internal import GitStore

extension Repository {
    /// The commit with this id, read by the store (``ObjectStore/commit(_:verifyingWith:)``, the
    /// one reader of commits).
    /// - Throws: ``GitError`` when there is no such commit, or it is damaged.
    public func commit(_ id: OID) throws -> Commit {
        let (commit, message) = try readingCommits { try store.commitAndMessage(id) }
        return Commit(
            id: id, tree: commit.tree, parents: commit.parents, message: message,
            author: Signature(commit.author), committer: Signature(commit.committer))
    }

    /// The id of a commit's root tree.
    /// - Throws: ``GitError`` when there is no such commit, or it is damaged.
    public func treeID(ofCommit id: OID) throws -> OID {
        try readingCommits { try store.treeID(ofCommit: id) }
    }

    /// The ids of a commit's parents, first parent first.
    /// - Throws: ``GitError`` when there is no such commit, or it is damaged.
    public func parents(ofCommit id: OID) throws -> [OID] {
        try readingCommits { try store.parents(ofCommit: id) }
    }

    /// Runs a read of the store's commits, a missing object explained by the packs that could not be read.
    func readingCommits<T>(_ body: () throws -> T) throws -> T {
        var result: T?
        try explainingMissing { result = try readingStore(body) }
        return result!
    }

    /// Writes a commit. When `updateReference` is given, the reference is moved to the new
    /// commit only if it still points at the first parent (or does not exist and there is no
    /// parent): a compare-and-swap between concurrent writers.
    /// - Throws: ``GitError`` (``GitError/isNotFastForward`` when the reference moved).
    public func createCommit(
        tree: OID, parents: [OID], author: Signature, committer: Signature,
        message: String, updateReference: String? = nil
    ) throws -> OID {
        // By ids: libgit2 checks the tree is one by its header, without parsing a wide folder.
        let authorPointer = try author.makeSignature()
        defer { git_signature_free(authorPointer) }
        let committerPointer = try committer.makeSignature()
        defer { git_signature_free(committerPointer) }
        var oid = git_oid()
        // Inside writingOnePack the pack is stored before the reference moves to the commit.
        let movedHere = isWritingOnePack ? nil : updateReference
        if let movedHere { CrashPoint.reach(crashPointName(movedHere, "before")) }
        var treeID = tree.raw
        var parentIDs = parents.map(\.raw)
        try parentIDs.withUnsafeMutableBufferPointer { ids in
            var pointers: [UnsafePointer<git_oid>?] = (0..<ids.count).map { UnsafePointer(ids.baseAddress! + $0) }
            try pointers.withUnsafeMutableBufferPointer { parentPointers in
                try check(
                    "git_commit_create_from_ids",
                    git_commit_create_from_ids(
                        &oid, pointer, movedHere, authorPointer, committerPointer, "UTF-8", message,
                        &treeID, parentPointers.count, parentPointers.baseAddress))
            }
        }
        if let movedHere { CrashPoint.reach(crashPointName(movedHere, "after")) }
        if let updateReference, movedHere == nil {
            try setReference(updateReference, to: OID(oid), expected: parents.first, message: "commit: \(message.prefix { $0 != "\n" })")
        }
        return OID(oid)
    }
}
