internal import FoundationEssentials
package import GitFormat

extension ObjectStore {
    /// How an object's id is computed from someone else's bytes: SHA-1 with collision
    /// detection, as libgit2 computes it (the `Git` wrapper hands in libgit2's).
    package typealias ObjectHasher = (ObjectType, [UInt8]) -> OID

    /// Copies into `destination` every object of the commits reachable from `tips` and not from
    /// `known` (commits the destination already has), as one pack. For each commit it follows
    /// only the folders that differ from its parents', so the cost follows what changed, not
    /// the size of the trees (libgit2's pack building for fetch and push reads every folder of
    /// the known commits). Both stores must be on this machine.
    ///
    /// When this store is its device's own (`hashing` nil), stored entries are copied as they
    /// are. When it is not (a cloud's), Concord does what an indexer does, once: every object is
    /// read (a folder from the bytes of the version it was compared with), hashed with `hashing`
    /// and refused unless it hashes to its id, and no delta names a base outside the pack. An
    /// entry is copied as stored only as the very bytes that were read, inflated and hashed (a
    /// delta, once it rebuilds the object from the bytes the new pack holds for its base);
    /// anything else is encoded anew from what was read. The folders read for a cloud are not
    /// kept past the copy.
    /// - Returns: the number of objects copied.
    /// - Throws: ``StoreError`` when the pack cannot be stored, or when an object of this store
    ///   cannot be read or does not hash to its id (then never ``StoreError/Kind/io``: what
    ///   cannot be read of a store whose tips were found is damaged).
    @discardableResult
    package func copyObjects(to destination: ObjectStore, from tips: [OID], hiding known: [OID], hashing: ObjectHasher? = nil) throws -> Int {
        // What the destination has, from its packs' indexes and one listing of its loose
        // objects (libgit2 looks for each object's file in turn).
        let receiverPacks = destination.packs, receiverLoose = Set(destination.looseObjects())
        let receiverHas: (OID) -> Bool = { receiverPacks.contains($0) || receiverLoose.contains($0) }
        defer { if hashing != nil { recent.removeAll() } }
        var pack: PackWriter
        do {
            pack = try packOfChanges(
                from: tips, hiding: known, reusing: hashing == nil, verifyingWith: hashing, skipping: receiverHas, spillingInto: destination.path + "pack/")
        } catch let error as StoreError where error.kind == .io {
            throw StoreError(.damaged, error.message)
        }
        guard pack.count > 0 else { return 0 }
        _ = try destination.storePack(&pack)
        CrashPoint.reach("objects:copied")
        return pack.count
    }

    /// One pack of the objects of the commits reachable from `tips` and not from `known`: each
    /// commit, and the folders and files of its tree that differ from its parents' trees
    /// (objects for which `skip` is true are left out, with what is below them), not finished
    /// yet (``PackWriter/finish()``), written into a temporary file of `folder` (the pack folder
    /// of the store it is for) as it is built, or with no folder kept in memory. Cost follows what changed, not the size of the trees: a changed folder or file
    /// is stored as a delta against the same path's version in the parent commit
    /// (``PackWriter``), and nothing searches for other deltas. A `thin` pack may name as bases
    /// objects of `known` commits, which the receiver must have. `reusing` copies entries of
    /// this store's packs as they are stored when it can; `hashing`, when given, hashes every
    /// object read and refuses one that does not hash to its id.
    /// - Throws: ``StoreError`` when an object cannot be read or the pack cannot be built.
    package func packOfChanges(
        from tips: [OID], hiding known: [OID], thin: Bool = false, reusing: Bool = false, verifyingWith hashing: ObjectHasher? = nil,
        skipping skip: @escaping (OID) -> Bool = { _ in false }, spillingInto folder: String? = nil
    ) throws -> PackWriter {
        let commits = try self.commits(from: tips, hiding: known, verifyingWith: hashing)
        let sources = reusing ? try packFiles().reversed().map { try packs.pack(named: $0.name) } : []
        var pack = try PackWriter(thin: thin, copyingFrom: sources, receiverHas: skip, spillingInto: folder)
        try addChanges(of: commits.reversed(), to: &pack, verifyingWith: hashing, skipping: skip)
        if !thin { try pack.addMissingBases(read: read) }
        return pack
    }

    /// Adds to `pack` each of `commits` (parents before children) with the folders and files of
    /// its tree that differ from its parents' trees, each a delta against the same path's
    /// version in the first parent where that is worth it. Objects for which `skip` is true
    /// are left out, with what is below them. With `hashing`, every object read is hashed
    /// and refused unless it hashes to its id.
    ///
    /// With `deltasOnly` (a roll-up, which copies everything else as stored afterwards), only
    /// the folders and files that have a version in the first parent are added, each after that
    /// version: a commit, a path it adds and a folder it adds with all below it are passed over
    /// unread, so the walk of a commit that imported 10,000 documents costs its root folder.
    /// - Throws: ``StoreError``: ``StoreError/Kind/refusedFolder`` for a folder malformed or
    ///   nested deeper than ``deepestFolder``, told with its commit and path; an object over the
    ///   limit told with its commit and path.
    package func addChanges(
        of commits: [OID], to pack: inout PackWriter, verifyingWith hashing: ObjectHasher? = nil, deltasOnly: Bool = false, skipping skip: (OID) -> Bool
    ) throws {
        let read: PackWriter.Reader = { id in
            guard let hashing else { return try self.read(id) }
            let object = try self.readForCopy(id)
            try Self.verify(object, is: id, hashing)
            return object
        }
        func adding(_ id: OID, at path: String, commit: OID, previous: OID?) throws {
            if deltasOnly, let previous, !skip(previous) { try pack.add(previous, previous: nil, read: read) }
            do {
                try pack.add(id, previous: previous, read: read)
            } catch let error as StoreError where error.kind == .overLimit {
                let claim = error.message.firstRange(of: "claims").map { String(error.message[$0.lowerBound...]) } ?? error.message
                throw StoreError(.overLimit, "commit \(commit.short): '\(Self.shortened(path))' \(claim)")
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
            if !deltasOnly, !skip(commit) { try pack.add(commit, previous: nil, read: read) }
            let parentTrees = try parents(ofCommit: commit).map(treeID(ofCommit:))
            var pending = [Folder(tree: try treeID(ofCommit: commit), old: parentTrees, path: "", depth: 0)]
            while let folder = pending.popLast() {
                let (tree, old, path) = (folder.tree, folder.old, folder.path)
                guard !old.contains(tree), !pack.contains(tree), !skip(tree), !(deltasOnly && old.isEmpty) else { continue }
                guard folder.depth <= Self.deepestFolder else {
                    throw StoreError(
                        .refusedFolder, "commit \(commit.short): the folder '\(Self.shortened(path))' is nested deeper than \(Self.deepestFolder) folders")
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
                        } else if !skip(entry.id), !(deltasOnly && base == nil) {
                            try adding(entry.id, at: name, commit: commit, previous: base)
                        }
                    }
                } catch let error as StoreError where error.kind == .malformedFolder {
                    throw error.found(inFolder: path, tree: tree, commit: commit)
                }
                pending.append(contentsOf: below.reversed())
            }
        }
    }

    /// The deepest nesting of folders a transfer takes: a path of 1,024 bytes, Concord's longest,
    /// holds at most 512 folders.
    package static let deepestFolder = 512

    /// Refuses `object` unless `hashing` gives it the id `id`.
    /// - Throws: ``StoreError/Kind/damaged`` when it hashes to another id.
    static func verify(_ object: ObjectBytes, is id: OID, _ hashing: ObjectHasher) throws {
        let computed = hashing(object.type, object.bytes)
        guard computed == id else {
            throw StoreError(.damaged, "object \(id.hex) does not hold what its id says (its content hashes to \(computed.hex))")
        }
    }

    /// `path` cut to its first 80 characters, for a message.
    static func shortened(_ path: String) -> String {
        path.count <= 80 ? path : path.prefix(80) + "…"
    }
}
