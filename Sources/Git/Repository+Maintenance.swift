internal import CGit2
internal import Foundation
public import GitFormat
public import GitStore

/// What a repack did.
public struct RepackReport: Sendable, Equatable {
    /// Packs merged into the new one (and removed).
    public var packsMerged: Int
    /// Loose objects moved into the new pack (and removed).
    public var looseObjectsPacked: Int
    /// Objects in the new pack; 0 when nothing was written.
    public var objectsWritten: Int
    /// Unreachable objects dropped (a full repack only).
    public var objectsPruned: Int
}

extension Repository {
    /// The packs of the object database, smallest first.
    public func packs() -> [PackFile] { store.packFiles() }

    /// The loose objects of the object database.
    public func looseObjects() -> [OID] { store.looseObjects() }

    /// The size on disk of a loose object's file; nil when it has none.
    public func looseObjectBytes(_ id: OID) -> Int? { store.looseObjectBytes(id) }

    /// Merges `packs` and the loose objects into one new pack, then removes what was merged.
    /// The new pack is complete and synced before anything is removed, so an interruption at any
    /// moment loses nothing (at worst an object is in two places); a reader that had a removed
    /// pack open keeps reading it, and one that looks again finds the objects in the new pack.
    /// - Throws: ``GitError`` when an object cannot be read or the pack cannot be written.
    @discardableResult
    public func merge(packs: [PackFile], andLooseObjects loose: [OID]) throws -> RepackReport {
        try readingStore { try mergeStored(packs: packs, andLooseObjects: loose) }
    }

    private func mergeStored(packs: [PackFile], andLooseObjects loose: [OID]) throws -> RepackReport {
        guard packs.count >= 2 || !loose.isEmpty else {
            return RepackReport(packsMerged: 0, looseObjectsPacked: 0, objectsWritten: 0, objectsPruned: 0)
        }
        let sources = try packs.map { try storedPacks.pack(named: $0.name) }
        var pack = PackWriter(thin: false, copyingFrom: sources)
        var database: OpaquePointer?
        try check("git_repository_odb", git_repository_odb(&database, pointer))
        defer { git_odb_free(database) }
        // When a merged pack holds a wide folder whole (each save stores its version whole),
        // the commits merged come first, with the changes they made as deltas against their
        // parents' versions; then the rest as stored, then what is loose.
        var merged = Set(loose), commits: [OID] = []
        var stored: [(source: StoredPack, entry: StoredPack.Entry, header: StoredPack.Header)] = []
        for source in sources {
            for entry in try source.entries {
                let header = try source.header(of: entry)
                stored.append((source, entry, header))
                merged.insert(entry.id)
                if header.type == 1 { commits.append(entry.id) }
            }
        }
        if !loose.isEmpty || stored.contains(where: { PackWriter.isWideFolder($0.header) }) {
            for id in loose where try objectType(id, in: database) == GIT_OBJECT_COMMIT { commits.append(id) }
            try addCommits(commits, among: merged, to: &pack, from: database)
        }
        for (source, entry, header) in stored { try pack.copy(entry, of: source, header: header) }
        for id in loose { try pack.add(id, previous: nil, read: { try self.readObject($0, from: database) }) }
        try pack.addMissingBases { try self.readObject($0, from: database) }
        let written = pack.count
        let bytes = try pack.finish()
        let name = try storeOwnPack(bytes, index: pack.index(of: bytes))
        CrashPoint.reach("repack:pack-written")
        // A new pack identical to an old one has its name: that one stays.
        store.removePacks(packs.map(\.name).filter { $0 != name })
        store.removeLooseObjects(loose)
        try refreshObjects()
        return RepackReport(packsMerged: packs.count, looseObjectsPacked: loose.count, objectsWritten: written, objectsPruned: 0)
    }

    /// Writes every object reachable from a reference (or HEAD) into one new pack and removes every other pack
    /// and loose object: objects nothing reaches are dropped. The caller must keep other writers
    /// out meanwhile (an object written but not yet named by a reference would be dropped).
    /// - Throws: ``GitError`` when an object cannot be read or the pack cannot be written.
    @discardableResult
    public func repackAll() throws -> RepackReport {
        let folder = gitDirectory + "objects/pack"
        let before = packs()
        let loose = looseObjects()
        var commits: [OID] = []
        // What a reference's log names stays too (as git gc keeps it): a log entry naming a
        // dropped commit is an error to git fsck, and a cloud that moved its main back would
        // otherwise leave origin/main's log naming commits no longer here.
        try walk(fromEveryReference: true, from: loggedCommits()) { id in
            commits.append(id)
            return true
        }
        var builder: OpaquePointer?
        try check("git_packbuilder_new", git_packbuilder_new(&builder, pointer))
        defer { git_packbuilder_free(builder) }
        git_packbuilder_set_threads(builder, 0)
        for commit in commits.reversed() {
            var raw = commit.raw
            try check("git_packbuilder_insert_commit", git_packbuilder_insert_commit(builder, &raw))
        }
        let written = Int(git_packbuilder_object_count(builder))
        let name = try writePack(builder, into: folder)
        CrashPoint.reach("repack:pack-written")
        let kept = Set(try readingStore { try ObjectStore.objectIDs(ofIndex: "\(folder)/\(name.dropLast(".pack".count)).idx") })
        var dropped = Set(loose).subtracting(kept)
        for pack in before where pack.name != name {
            dropped.formUnion(
                try readingStore { try ObjectStore.objectIDs(ofIndex: "\(folder)/\(pack.name.dropLast(".pack".count)).idx") }.filter { !kept.contains($0) })
            store.removePacks([pack.name])
        }
        store.removeLooseObjects(loose)
        try refreshObjects()
        return RepackReport(
            packsMerged: before.count, looseObjectsPacked: loose.count, objectsWritten: written,
            objectsPruned: dropped.count)
    }

    // MARK: Pieces

    /// The commits the logs of every reference name (old and new values) that this repository holds.
    private func loggedCommits() throws -> [OID] {
        var names = git_strarray()
        try check("git_reference_list", git_reference_list(&names, pointer))
        defer { git_strarray_dispose(&names) }
        var found = Set<OID>()
        for index in 0..<names.count {
            guard let name = names.strings[index] else { continue }
            var log: OpaquePointer?
            guard git_reflog_read(&log, pointer, name) == 0 else {
                git_error_clear()
                continue
            }
            defer { git_reflog_free(log) }
            for number in 0..<git_reflog_entrycount(log) {
                guard let entry = git_reflog_entry_byindex(log, number) else { continue }
                for raw in [git_reflog_entry_id_old(entry), git_reflog_entry_id_new(entry)] {
                    guard let raw else { continue }
                    let id = OID(raw.pointee)
                    var object: OpaquePointer?
                    if id.bytes.contains(where: { $0 != 0 }), git_object_lookup(&object, pointer, raw, GIT_OBJECT_COMMIT) == 0 {
                        found.insert(id)
                    } else {
                        git_error_clear()
                    }
                    git_object_free(object)
                }
            }
        }
        return found.sorted()
    }

    /// Adds `commits` to `pack`, parents first, each with the changes of its tree that are
    /// among `objects` (what is being packed), as deltas against its parents' versions of the
    /// same paths.
    private func addCommits(_ commits: [OID], among objects: Set<OID>, to pack: inout PackWriter, from database: OpaquePointer?) throws {
        var parentsAmong: [OID: [OID]] = [:]
        for commit in commits { parentsAmong[commit] = try parents(ofCommit: commit).filter(objects.contains) }
        // Parents before children, without recursion (a merged pack may hold a long line).
        var ordered: [OID] = []
        var placed = Set<OID>()
        for first in parentsAmong.keys.sorted(by: { $0.hex < $1.hex }) {
            var pending = [(commit: first, parentsPlaced: false)]
            while let (commit, parentsPlaced) = pending.popLast() {
                if parentsPlaced {
                    ordered.append(commit)
                } else if placed.insert(commit).inserted {
                    pending.append((commit, true))
                    for parent in parentsAmong[commit] ?? [] where !placed.contains(parent) { pending.append((parent, false)) }
                }
            }
        }
        try addChanges(of: ordered, to: &pack, from: database, skipping: { !objects.contains($0) })
    }

    /// The type of the object `id`, from its header.
    private func objectType(_ id: OID, in database: OpaquePointer?) throws -> git_object_t {
        var raw = id.raw
        var size = 0
        var type = GIT_OBJECT_ANY
        try check("git_odb_read_header", git_odb_read_header(&size, &type, database, &raw))
        return type
    }

    /// Writes the pack and its index into `folder` (libgit2's indexer writes both under
    /// temporary names, syncs them and renames them into place).
    /// - Returns: the pack's file name, `pack-<hash>.pack`.
    private func writePack(_ builder: OpaquePointer?, into folder: String) throws -> String {
        try check("git_packbuilder_write", git_packbuilder_write(builder, folder, 0, nil, nil))
        guard let name = git_packbuilder_name(builder) else {
            throw GitError(message: "the new pack has no name", function: "git_packbuilder_name")
        }
        return "pack-\(String(cString: name)).pack"
    }

    /// Has libgit2 list the object database's packs again.
    func refreshObjects() throws {
        var database: OpaquePointer?
        try check("git_repository_odb", git_repository_odb(&database, pointer))
        defer { git_odb_free(database) }
        try check("git_odb_refresh", git_odb_refresh(database))
    }
}
