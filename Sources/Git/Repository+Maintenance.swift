internal import CGit2
public import GitFormat
public import GitStore

extension Repository {
    /// The packs of the object database, smallest first.
    public func packs() -> [PackFile] { store.packFiles() }

    /// The loose objects of the object database.
    public func looseObjects() -> [OID] { store.looseObjects() }

    /// The size on disk of a loose object's file; nil when it has none.
    public func looseObjectBytes(_ id: OID) -> Int? { store.looseObjectBytes(id) }

    /// Merges `packs` and the loose objects into one new pack, then removes what was merged
    /// (``ObjectStore/merge(packs:andLooseObjects:)``): nothing is removed before the new pack
    /// is complete and synced.
    /// - Throws: ``GitError`` when an object cannot be read or the pack cannot be written.
    @discardableResult
    public func merge(packs: [PackFile], andLooseObjects loose: [OID]) throws -> RepackReport {
        let report = try readingStore { try store.merge(packs: packs, andLooseObjects: loose) }
        if report.packsMerged > 0 || report.looseObjectsPacked > 0 { try refreshObjects() }
        return report
    }

    /// Writes every object reachable from a reference (or HEAD) into one new pack and removes every other pack
    /// and loose object: objects nothing reaches are dropped (``ObjectStore/repackAll(keeping:)``).
    /// The caller must keep other writers out meanwhile (an object written but not yet named by
    /// a reference would be dropped).
    /// - Throws: ``GitError`` when an object cannot be read or the pack cannot be written.
    @discardableResult
    public func repackAll() throws -> RepackReport {
        // What a reference's log names stays too (as git gc keeps it): a log entry naming a
        // dropped commit is an error to git fsck, and a cloud that moved its main back would
        // otherwise leave origin/main's log naming commits no longer here.
        let tips = try referencedCommits() + loggedCommits()
        let report = try readingStore { try store.repackAll(keeping: tips) }
        try refreshObjects()
        return report
    }

    // MARK: Pieces

    /// The commits every reference and HEAD name (an annotated tag's commit for a tag).
    private func referencedCommits() throws -> [OID] {
        var names = git_strarray()
        try check("git_reference_list", git_reference_list(&names, pointer))
        defer { git_strarray_dispose(&names) }
        var found: [OID] = []
        for name in (0..<names.count).compactMap({ names.strings[$0] }).map({ String(cString: $0) }) + ["HEAD"] {
            var reference: OpaquePointer?, object: OpaquePointer?
            defer {
                git_object_free(object)
                git_reference_free(reference)
            }
            guard try git_reference_lookup(&reference, pointer, name) == 0, git_reference_peel(&object, reference, GIT_OBJECT_COMMIT) == 0,
                let id = git_object_id(object)
            else {
                git_error_clear()
                continue
            }
            found.append(OID(id.pointee))
        }
        return found
    }

    /// The commits the logs of every reference name (old and new values) that this repository holds.
    private func loggedCommits() throws -> [OID] {
        var names = git_strarray()
        try check("git_reference_list", git_reference_list(&names, pointer))
        defer { git_strarray_dispose(&names) }
        var found = Set<OID>()
        for index in 0..<names.count {
            guard let name = names.strings[index] else { continue }
            var log: OpaquePointer?
            guard try git_reflog_read(&log, pointer, name) == 0 else {
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
                    if id.bytes.contains(where: { $0 != 0 }), try git_object_lookup(&object, pointer, raw, GIT_OBJECT_COMMIT) == 0 {
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

    /// Has libgit2 list the object database's packs again.
    func refreshObjects() throws {
        var database: OpaquePointer?
        try check("git_repository_odb", git_repository_odb(&database, pointer))
        defer { git_odb_free(database) }
        try check("git_odb_refresh", git_odb_refresh(database))
    }
}
