internal import CGit2
internal import Foundation
internal import Glibc
public import GitFormat
internal import GitStore

extension Repository {
    /// The commit with this id, copied out.
    /// - Throws: ``GitError`` when there is no such commit.
    public func commit(_ id: OID) throws -> Commit {
        let commit = try lookupCommit(id)
        defer { git_commit_free(commit) }
        let parentCount = git_commit_parentcount(commit)
        var parents: [OID] = []
        for index in 0..<parentCount {
            if let parent = git_commit_parent_id(commit, index) { parents.append(OID(parent.pointee)) }
        }
        let message = git_commit_message_raw(commit).map { String(cString: $0) } ?? ""
        return Commit(
            id: id,
            tree: OID(git_commit_tree_id(commit).pointee),
            parents: parents,
            message: message,
            author: Signature(copying: git_commit_author(commit)),
            committer: Signature(copying: git_commit_committer(commit))
        )
    }

    /// Looks a commit up (read through the store); the caller frees it.
    func lookupCommit(_ id: OID) throws -> OpaquePointer? {
        var raw = id.raw
        var commit: OpaquePointer?
        try explainingMissing { try check("git_commit_lookup", git_commit_lookup(&commit, pointer, &raw)) }
        return commit
    }

    /// The id of a commit's root tree.
    public func treeID(ofCommit id: OID) throws -> OID {
        let commit = try lookupCommit(id)
        defer { git_commit_free(commit) }
        return OID(git_commit_tree_id(commit).pointee)
    }

    /// The ids of a commit's parents, first parent first.
    public func parents(ofCommit id: OID) throws -> [OID] {
        let commit = try lookupCommit(id)
        defer { git_commit_free(commit) }
        return (0..<git_commit_parentcount(commit)).compactMap { index in
            git_commit_parent_id(commit, index).map { OID($0.pointee) }
        }
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
