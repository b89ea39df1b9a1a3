package import GitFormat

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

extension ObjectStore {
    /// Merges `packs` and the loose objects into one new pack, then removes what was merged.
    /// The new pack is complete and synced before anything is removed, so an interruption at any
    /// moment loses nothing (at worst an object is in two places); a reader that had a removed
    /// pack open keeps reading it, and one that looks again finds the objects in the new pack.
    /// - Throws: ``StoreError`` when an object cannot be read or the pack cannot be written.
    @discardableResult
    package func merge(packs: [PackFile], andLooseObjects loose: [OID]) throws -> RepackReport {
        guard packs.count >= 2 || !loose.isEmpty else {
            return RepackReport(packsMerged: 0, looseObjectsPacked: 0, objectsWritten: 0, objectsPruned: 0)
        }
        let sources = try packs.map { try self.packs.pack(named: $0.name) }
        var pack = try PackWriter(thin: false, copyingFrom: sources, spillingInto: path + "pack/")
        // Each save's pack holds its version of a wide folder whole, and a loose object is
        // whole: the commits of such packs and the loose commits are walked for the changes
        // they made to a path their parent had, stored as deltas against the parent's version.
        // Everything else is copied as stored, first, so that those versions are in the pack
        // when the walk needs them and nothing else is read.
        var merged = Set(loose), walked: [OID] = []
        var stored: [(source: StoredPack, entry: StoredPack.Entry, header: StoredPack.Header)] = []
        for source in sources {
            var commits: [OID] = [], holdsWideFolder = false
            for entry in try source.entries {
                let header = try source.header(of: entry)
                stored.append((source, entry, header))
                merged.insert(entry.id)
                if header.type == 1 { commits.append(entry.id) }
                if PackWriter.isWideFolder(header) { holdsWideFolder = true }
            }
            if holdsWideFolder { walked += commits }
        }
        for id in loose where try header(of: id).type == .commit { walked.append(id) }
        // A wide folder stored whole that a stored delta takes as its base starts a chain: it
        // stays whole, and is copied first too.
        let bases = Set(stored.compactMap(\.header.base))
        for (source, entry, header) in stored where walked.isEmpty || !PackWriter.isWideFolder(header) || bases.contains(entry.id) {
            try pack.copy(entry, of: source, header: header)
        }
        if !walked.isEmpty {
            try addCommits(walked, among: merged, to: &pack)
            for (source, entry, header) in stored { try pack.copy(entry, of: source, header: header) }
        }
        for id in loose { try pack.add(id, previous: nil, read: read) }
        try pack.addMissingBases(read: read)
        let written = pack.count
        let name = try storePack(&pack)
        CrashPoint.reach("repack:pack-written")
        // A new pack identical to an old one has its name: that one stays.
        removePacks(packs.map(\.name).filter { $0 != name })
        removeLooseObjects(loose)
        return RepackReport(packsMerged: packs.count, looseObjectsPacked: loose.count, objectsWritten: written, objectsPruned: 0)
    }

    /// Writes every object reachable from `tips` into one new pack, each commit's changes as
    /// deltas against its parents' versions (entries of the packs there copied as stored where
    /// they can be), and removes every other pack and loose object: objects the tips do not
    /// reach are dropped. The caller must keep other writers out meanwhile (an object written
    /// but not yet named by a reference would be dropped).
    /// - Throws: ``StoreError`` when an object cannot be read or the pack cannot be written.
    @discardableResult
    package func repackAll(keeping tips: [OID]) throws -> RepackReport {
        let before = packFiles()
        let loose = looseObjects()
        let commits = try self.commits(from: tips)
        let sources = try before.reversed().map { try packs.pack(named: $0.name) }
        var pack = try PackWriter(thin: false, copyingFrom: sources, spillingInto: path + "pack/")
        try addChanges(of: commits.reversed(), to: &pack, skipping: { _ in false })
        try pack.addMissingBases(read: read)
        let written = pack.count
        var kept = Set<OID>()
        var name: String?
        if written > 0 {
            let stored = try storePack(&pack)
            CrashPoint.reach("repack:pack-written")
            kept = Set(try Self.objectIDs(ofIndex: indexPath(of: stored)))
            name = stored
        }
        var dropped = Set(loose).subtracting(kept)
        for old in before where old.name != name {
            dropped.formUnion(try Self.objectIDs(ofIndex: indexPath(of: old.name)).filter { !kept.contains($0) })
            removePacks([old.name])
        }
        removeLooseObjects(loose)
        return RepackReport(packsMerged: before.count, looseObjectsPacked: loose.count, objectsWritten: written, objectsPruned: dropped.count)
    }

    // MARK: Pieces

    /// The index file of the pack `name` (`pack-….pack`).
    private func indexPath(of name: String) -> String {
        "\(path)pack/\(name.dropLast(".pack".count)).idx"
    }

    /// Adds `commits` to `pack`, parents first, each with the changes of its tree that are
    /// among `objects` (what is being packed), as deltas against its parents' versions of the
    /// same paths.
    private func addCommits(_ commits: [OID], among objects: Set<OID>, to pack: inout PackWriter) throws {
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
        try addChanges(of: ordered, to: &pack, deltasOnly: true, skipping: { !objects.contains($0) })
    }
}
