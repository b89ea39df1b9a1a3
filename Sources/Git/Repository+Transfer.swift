internal import CGit2
internal import Foundation
public import GitFormat
internal import GitStore

extension Repository {
    /// Copies into `destination` every object of the commits reachable from `tips` and not from
    /// `known` (commits the destination already has), as one pack. For each commit it follows
    /// only the folders that differ from its parents', so the cost follows what changed, not
    /// the size of the trees (libgit2's pack building for fetch and push reads every folder of
    /// the known commits). Both repositories must be on this machine.
    ///
    /// When this repository is its device's own (`trusted`), stored entries are copied as they
    /// are and the pack is stored with the index Concord writes for it. When it is not (a
    /// cloud), Concord does what an indexer does, once: every object is read (a folder from the
    /// bytes of the version it was compared with, ``treeBytes(_:)``), hashed as libgit2 hashes
    /// (SHA-1 with collision detection) and refused unless it hashes to its id, and no delta
    /// names a base outside the pack. An entry is copied as stored only as the very bytes that
    /// were read, inflated and hashed (a delta, once it rebuilds the object from the bytes the
    /// new pack holds for its base); anything else is encoded anew from what was read.
    /// (libgit2's indexer, given the same pack, rebuilt each version of a wide folder from the
    /// whole copy at the start of its chain.)
    /// - Returns: the number of objects copied.
    /// - Throws: ``GitError`` when the pack cannot be stored, or when an object of this
    ///   repository cannot be read or does not hash to its id (then always
    ///   ``GitError/isBadObject``: it is damaged).
    @discardableResult
    public func copyObjects(to destination: Repository, from tips: [OID], hiding known: [OID], trusted: Bool = false) throws -> Int {
        // What the destination has, from its packs' indexes and one listing of its loose
        // objects (libgit2 looks for each object's file in turn).
        let receiverPacks = destination.storedPacks, receiverLoose = Set(destination.looseObjects())
        let receiverHas: (OID) -> Bool = { receiverPacks.contains($0) || receiverLoose.contains($0) }
        // A cloud's folders are read once a transfer (the next reads its next versions): the
        // wide ones read for it are not kept past it.
        defer { if !trusted { recentTreeBytes.removeAll() } }
        var (pack, bytes): (PackWriter, [UInt8])
        do {
            (pack, bytes) = try readingStore { try packOfChanges(from: tips, hiding: known, reusing: trusted, verifying: !trusted, skipping: receiverHas) }
        } catch let error as GitError {
            // This repository was opened and its tips found: what cannot be read of it now is
            // damaged (an index pointing past its pack, a file cut short), not out of reach.
            throw error.isBadObject ? error : GitError(code: error.code, errorClass: Int32(GIT_ERROR_ODB.rawValue), message: error.message, function: error.function)
        }
        guard pack.count > 0 else { return 0 }
        _ = try destination.storeOwnPack(bytes, index: pack.index(of: bytes))
        CrashPoint.reach("objects:copied")
        bytes = []
        return pack.count
    }

    /// One pack of the objects of the commits reachable from `tips` and not from `known`: each
    /// commit, and the folders and files of its tree that differ from its parents' trees
    /// (objects for which `skip` is true are left out, with what is below them), with its
    /// bytes. Cost follows what changed, not the size of the trees: a changed folder or file
    /// is stored as a delta against the same path's version in the parent commit
    /// (``PackWriter``), and nothing searches for other deltas. A `thin` pack may name as bases
    /// objects of `known` commits, which the receiver must have. `reusing` copies entries of
    /// this repository's packs as they are stored when it can; `verifying` hashes every object
    /// read and refuses one that does not hash to its id.
    /// - Throws: ``GitError`` when an object cannot be read or the pack cannot be built.
    func packOfChanges(
        from tips: [OID], hiding known: [OID], thin: Bool = false, reusing: Bool = false, verifying: Bool = false,
        skipping skip: @escaping (OID) -> Bool = { _ in false }
    ) throws -> (pack: PackWriter, bytes: [UInt8]) {
        var commits: [OID] = []
        try walk(from: tips, hiding: known.filter(contains)) { id in
            commits.append(id)
            return true
        }
        var database: OpaquePointer?
        try check("git_repository_odb", git_repository_odb(&database, pointer))
        defer { git_odb_free(database) }
        let sources = reusing ? try packs().reversed().map { try storedPacks.pack(named: $0.name) } : []
        var pack = PackWriter(thin: thin, copyingFrom: sources, receiverHas: skip)
        try addChanges(of: commits.reversed(), to: &pack, from: database, verifying: verifying, skipping: skip)
        if !thin { try pack.addMissingBases { try self.readObject($0, from: database) } }
        let bytes = try pack.finish()
        return (pack, bytes)
    }

    /// Adds to `pack` each of `commits` (parents before children) with the folders and files of
    /// its tree that differ from its parents' trees, each a delta against the same path's
    /// version in the first parent where that is worth it. Objects for which `skip` is true
    /// are left out, with what is below them. With `verifying`, every object read is hashed
    /// and refused unless it hashes to its id.
    func addChanges(
        of commits: [OID], to pack: inout PackWriter, from database: OpaquePointer?, verifying: Bool = false, skipping skip: (OID) -> Bool
    ) throws {
        let read: PackWriter.Reader = { id in
            let object = try self.readObject(id, from: database, keepingStored: verifying)
            if verifying { try Self.verify(object, is: id) }
            return object
        }
        // A folder's path in messages, and an over-limit object told with its commit and path.
        func adding(_ id: OID, at path: String, commit: OID, previous: OID?) throws {
            do {
                try pack.add(id, previous: previous, read: read)
            } catch let error as GitError where error.isOverLimit {
                let claim = error.message.range(of: "claims").map { String(error.message[$0.lowerBound...]) } ?? error.message
                throw GitError(
                    code: error.code, errorClass: error.errorClass, message: "commit \(commit.short): '\(Self.shortened(path))' \(claim)",
                    function: error.function)
            }
        }
        // Each commit's changed folders, depth first, in a loop: the folders come from someone
        // else and may nest without end.
        struct Folder {
            var tree: OID
            var old: [OID]
            var path: String
            var depth: Int
        }
        for commit in commits {
            if !skip(commit) { try pack.add(commit, previous: nil, read: read) }
            let parentTrees = try parents(ofCommit: commit).map(treeID(ofCommit:))
            var pending = [Folder(tree: try treeID(ofCommit: commit), old: parentTrees, path: "", depth: 0)]
            while let folder = pending.popLast() {
                let (tree, old, path) = (folder.tree, folder.old, folder.path)
                guard !old.contains(tree), !pack.contains(tree), !skip(tree) else { continue }
                guard folder.depth <= Self.deepestFolder else {
                    throw GitError(
                        errorClass: Int32(GIT_ERROR_TREE.rawValue),
                        message: "commit \(commit.short): the folder '\(Self.shortened(path))' is nested deeper than \(Self.deepestFolder) folders",
                        function: "copyObjects")
                }
                try adding(tree, at: path.isEmpty ? "/" : path, commit: commit, previous: old.first)
                var below: [Folder] = []
                do {
                    try forEachDifference(old.first, tree) { first, entry in
                        guard let entry, entry.kind != .commit else { return }
                        // A merge's other parents: an entry one of them already has is not new either.
                        let previous = try old.dropFirst().compactMap { try child(Substring(entry.name), of: $0) }
                        if previous.contains(where: { $0.id == entry.id }) { return }
                        let base = first.flatMap { $0.kind == entry.kind ? $0.id : nil }
                        let name = path.isEmpty ? entry.name : "\(path)/\(entry.name)"
                        if entry.kind == .tree {
                            let trees = ([first].compactMap { $0 } + previous).filter { $0.kind == .tree }.map(\.id)
                            below.append(Folder(tree: entry.id, old: trees, path: name, depth: folder.depth + 1))
                        } else if !skip(entry.id) {
                            try adding(entry.id, at: name, commit: commit, previous: base)
                        }
                    }
                } catch let error as GitError where error.isFolderProblem {
                    throw error.found(inFolder: path, tree: tree, commit: commit)
                }
                pending.append(contentsOf: below.reversed())
            }
        }
    }

    /// The deepest nesting of folders a transfer takes: a path of 1,024 bytes, Concord's longest,
    /// holds at most 512 folders.
    static let deepestFolder = 512

    /// `path` cut to its first 80 characters, for a message.
    static func shortened(_ path: String) -> String {
        path.count <= 80 ? path : path.prefix(80) + "…"
    }

    /// Refuses `object` unless it hashes to `id` (as libgit2 hashes: SHA-1 with collision detection).
    static func verify(_ object: ObjectBytes, is id: OID) throws {
        var computed = git_oid()
        try object.bytes.withUnsafeBytes { try check("git_odb_hash", git_odb_hash(&computed, $0.baseAddress, $0.count, git_object_t(object.type))) }
        guard OID(computed) == id else {
            throw GitError(
                code: GIT_EMISMATCH.rawValue, errorClass: Int32(GIT_ERROR_ODB.rawValue),
                message: "object \(id.hex) does not hold what its id says (its content hashes to \(OID(computed).hex))", function: "git_odb_hash")
        }
    }

    /// An object's type and bytes, read from the store (``ObjectStore/read(_:)``).
    /// `keepingStored` also keeps the pack entry it was read from, as read
    /// (``ObjectBytes/stored``), for a pack writer to copy as it is.
    func readObject(_ id: OID, from database: OpaquePointer? = nil, keepingStored: Bool = false) throws -> ObjectBytes {
        try readingStore { try keepingStored ? store.readForCopy(id) : store.read(id) }
    }
}
