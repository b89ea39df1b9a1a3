internal import FoundationEssentials
internal import Git
internal import GitFormat
internal import GitStore
internal import Logging

extension History {
    /// The ids among `ids`, named by the conflict record of `document`, that are versions of it.
    /// Any other (no such commit in this container, not a commit, a commit that did not change the
    /// document) is left out with one warning: a broken record never blocks listing or resolving.
    func recordedVersions(_ ids: Set<OID>, of document: DocumentPath) throws -> Set<OID> {
        var kept = Set<OID>()
        // Versions the history index lists need no reading of the history.
        let indexed = Set(index(at: try head())?.versions(of: document.value).map(\.commit) ?? [])
        // Read only when a record names a version that is not one under this name.
        var former: Set<OID>?
        func isFormerVersion(_ id: OID) throws -> Bool {
            if former == nil { former = Set(try formerVersionHeads().flatMap { try formerVersions(of: document, at: $0).map(\.id) }) }
            return former?.contains(id) == true
        }
        for id in ids.sorted() {
            let problem: String?
            if indexed.contains(id) {
                problem = nil
            } else if !repository.contains(id) {
                problem = "no such commit in this container"
            } else if (try? known(id)) == nil {
                problem = "not a commit"
            } else if try !isVersion(id, of: document, patterns: historyPatterns()), try !isFormerVersion(id) {
                problem = "not a version of it"
            } else {
                problem = nil
            }
            guard let problem else {
                kept.insert(id)
                continue
            }
            logger.warning("ignored \(id.short) in the conflict record of '\(document)': \(problem)")
        }
        return kept
    }

    func conflictRecord(of document: DocumentPath, in tree: OID?) throws -> ConflictRecord? {
        guard let entry = try entry(ConflictRecord.path(of: document), in: tree) else { return nil }
        let data = try ConcordError.wrap("cannot read the conflict record of \(document)") { try repository.blob(entry.id) }
        return ConflictRecord(document: document, data: data)
    }

    /// Every conflict record in `tree`: reads the records folder only, never the documents.
    func conflictRecords(in tree: OID?) throws -> [ConflictRecord] {
        guard let folder = try entry(ConflictRecord.folder, in: tree), folder.kind == .tree else { return [] }
        return try ConcordError.wrap("cannot read the conflict records") {
            try repository.entries(ofTree: folder.id).compactMap { entry in
                guard let document = ConflictRecord.document(fromName: entry.name) else { return nil }
                return ConflictRecord(document: document, data: try repository.blob(entry.id))
            }
        }
    }

    /// The documents whose conflict record differs between two trees (added, removed or
    /// rewritten): compares the records folders entry by entry and reads no record, so the cost
    /// follows the records that changed, not the documents in conflict.
    func changedConflictRecords(from old: OID?, to new: OID?) throws -> [DocumentPath] {
        func folder(in tree: OID?) throws -> OID? {
            guard let folder = try entry(ConflictRecord.folder, in: tree), folder.kind == .tree else { return nil }
            return folder.id
        }
        let changes = try ConcordError.wrap("cannot compare the conflict records") {
            try repository.diff(folder(in: old), folder(in: new))
        }
        return changes.compactMap { $0.path.contains("/") ? nil : ConflictRecord.document(fromName: $0.path) }
    }

    func conflicts() throws -> [Conflict] {
        try conflictRecords(in: tree(of: head())).map { record in
            Conflict(
                document: record.document, versionCount: record.versions.count + 1,
                conflictVersionIDs: record.versions.sorted().map(\.hex))
        }.sorted { $0.document < $1.document }
    }
}
