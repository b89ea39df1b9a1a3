internal import ConcordMerge
internal import FoundationEssentials
internal import Git
internal import GitFormat
internal import GitStore
internal import Logging

extension History {
    /// True when `commit` is a version of `document` (read under ``historyPatterns()``, given
    /// as `patterns`): its entry differs from every parent's, or the commit resolved the
    /// document's conflict.
    func isVersion(_ id: OID, of document: DocumentPath, patterns: PackagePatterns) throws -> Bool {
        let known = try known(id), commit = known.commit, trailers = known.trailers
        if !trailers.resolved(document).isEmpty { return true }
        // An integration that names another version current (one carried across a rename) is not one.
        if commit.parents.count > 1, let named = trailers.current(of: document), named != id { return false }
        if commit.parents.isEmpty { return try documentEntry(document, in: commit.tree, patterns: patterns) != nil }
        if commit.parents.count == 1, let changed = try changes(document, in: id, commit, patterns: patterns) { return changed }
        for parent in commit.parents where try sameDocumentEntry(document, commit.tree, tree(of: parent), patterns: patterns) { return false }
        return true
    }

    /// The version whose content `document` has at `head`, found by following, at each merge,
    /// a parent with the same content (git's history simplification). Nil when the document
    /// never existed there. `entry`, when the caller knows it, is `document`'s entry at `head`
    /// (the walk only follows commits that kept it, so no folder needs reading for it).
    ///
    /// A merge where the document is absent on several sides needs each side's current version
    /// (``firstExisting(_:versions:)``): such merges wait on a stack of their own, not in nested
    /// calls, as a long history holds one for each sync after a deletion (20,000 in a row
    /// overflowed the thread's stack).
    func currentVersion(of document: DocumentPath, at head: OID?, entry known: OID?? = nil) throws -> OID? {
        guard let head else { return nil }
        let patterns = try historyPatterns()
        var waiting: [(walked: [OID], sides: [OID], versions: [OID?])] = []
        var start = head
        var startEntry = known
        while true {
            switch try walkToVersion(of: document, from: start, entry: startEntry, patterns: patterns) {
            case let .absentOnSides(sides, walked):
                waiting.append((walked, sides, []))
                (start, startEntry) = (sides[0], nil)
            case let .found(version, walked):
                cache.remember(version, of: document, at: walked)
                var found = version
                while var merge = waiting.popLast() {
                    merge.versions.append(found)
                    if merge.versions.count < merge.sides.count {
                        waiting.append(merge)
                        break
                    }
                    found = try firstExisting(merge.sides, versions: merge.versions)
                    cache.remember(found, of: document, at: merge.walked)
                }
                guard let merge = waiting.last else { return found }
                (start, startEntry) = (merge.sides[merge.versions.count], nil)
            }
        }
    }

    /// Where a walk down from `start` toward `document`'s current version ends.
    private enum VersionWalkEnd {
        /// The current version (nil: the document never existed there), and the commits walked.
        case found(OID?, walked: [OID])
        /// A merge where the document is absent on each of `sides`, the walk's last commit.
        case absentOnSides([OID], walked: [OID])
    }

    /// Walks down from `start` along commits where `document` keeps its entry, to its current
    /// version or to a merge that needs its sides' (``currentVersion(of:at:entry:)``).
    private func walkToVersion(of document: DocumentPath, from start: OID, entry known: OID??, patterns: PackagePatterns) throws -> VersionWalkEnd {
        var id = start
        var walked: [OID] = []
        let index = openedIndex
        // Once the walk is in the history the index describes, the index may answer.
        var covered = false
        while true {
            if let known = cache.currentVersion(of: document, at: id) { return .found(known, walked: walked) }
            if let index {
                covered = covered || id == index.tip || index.arriving.map { !$0.contains(id) } == true
            }
            if covered, let index,
                let indexed = index.current(
                    of: document.value, entry: try known ?? documentEntry(document, in: tree(of: id), patterns: patterns)?.id, atTip: id == index.tip)
            {
                return .found(indexed, walked: walked)
            }
            walked.append(id)
            let stamp = try self.known(id), commit = stamp.commit, trailers = stamp.trailers
            if !trailers.resolved(document).isEmpty { return .found(id, walked: walked) }
            if commit.parents.count > 1, let named = trailers.current(of: document) { return .found(named, walked: walked) }
            if commit.parents.count == 1, let changed = try changes(document, in: id, commit, patterns: patterns) {
                if changed { return .found(id, walked: walked) }
                id = commit.parents[0]
                continue
            }
            let same = try commit.parents.filter { try sameDocumentEntry(document, commit.tree, tree(of: $0), patterns: patterns) }
            if same.count > 1, try documentEntry(document, in: commit.tree, patterns: patterns) == nil {
                // Absent on several sides: one may never have had the document while another
                // deleted it. The deletion is its current version, whichever parent comes first.
                return .absentOnSides(same, walked: walked)
            }
            guard let following = same.first else {
                return .found(try commit.parents.isEmpty && documentEntry(document, in: commit.tree, patterns: patterns) == nil ? nil : id, walked: walked)
            }
            id = following
        }
    }

    /// The current version of `document` at a merge where it is absent on each of `parents`, whose
    /// current versions are `versions`: the first parent's (the integrating side's, as when both
    /// sides reach the same content), unless that side never had the document, or another side
    /// deleted it anew knowing the first side's deletion (that side's version is in the other's
    /// history, not the reverse): as an integration takes the only side that changed a document,
    /// the later deletion is current (two concurrent resolutions of a file and a folder of one
    /// name each delete the folder's files: every device agrees on the one its integration kept
    /// for the name). Nil when none had it.
    private func firstExisting(_ parents: [OID], versions: [OID?]) throws -> OID? {
        var chosen: (parent: OID, version: OID)?
        for (parent, version) in zip(parents, versions) {
            guard let version else { continue }
            guard let current = chosen else {
                chosen = (parent, version)
                continue
            }
            func holds(_ head: OID, _ version: OID) throws -> Bool { try head == version || descends(head, from: version) }
            if version != current.version, try holds(parent, current.version), try !holds(current.parent, version) {
                chosen = (parent, version)
            }
        }
        return chosen?.version
    }

    /// Whether a one-parent commit changed `document`, from the paths it changed, found once per
    /// commit by diffing it with its parent: a walk over many documents then reads each commit's
    /// folders once, not once per document (a folder of 10,000 documents is a 400 KB tree).
    /// Nil when the commit changed too many paths to keep (an import): compare entries then.
    private func changes(_ document: DocumentPath, in id: OID, _ commit: Commit, patterns: PackagePatterns) throws -> Bool? {
        let changed = try cache.changedPaths(of: id) {
            guard
                let changes = try ConcordError.wrap(
                    "cannot compare trees",
                    {
                        try repository.diff(tree(of: commit.parents[0]), commit.tree, limit: 1000)
                    })
            else { return nil }
            var changed = HistoryCache.ChangedPaths(paths: [], edited: [])
            for change in changes {
                var path = Substring(change.path)
                if change.old != nil, change.new != nil { changed.edited.insert(TreePath(path)) }
                while changed.paths.insert(TreePath(path)).inserted, let slash = path.lastIndex(of: "/") {
                    path = path[..<slash]
                }
            }
            return changed
        }
        guard let changed else { return nil }
        let path = TreePath(document.value)
        if changed.edited.contains(path) { return true }
        // A folder above a changed file is in the set too: only a change of its state (a file
        // or nothing becoming a folder, or the reverse) is a version of that name.
        return try changed.paths.contains(path) && !sameDocumentEntry(document, tree(of: commit.parents[0]), commit.tree, patterns: patterns)
    }

    /// The versions a version replaced: the one its first parent held, and, for a resolution,
    /// every version it resolved. `parentEntry`, when known, is the document's entry in the
    /// first parent.
    func previousVersions(of id: OID, document: DocumentPath, parentEntry: OID?? = nil) throws -> [OID] {
        var result: [OID] = []
        let known = try known(id), commit = known.commit, trailers = known.trailers
        result += trailers.resolved(document).compactMap(OID.init(hex:))
        if let parent = commit.parents.first, let previous = try currentVersion(of: document, at: parent, entry: parentEntry),
            !result.contains(previous)
        {
            result.append(previous)
        }
        if let parent = commit.parents.first, let old = trailers.renamedFrom(document), let previous = try currentVersion(of: old, at: parent),
            !result.contains(previous)
        {
            result.append(previous)
        }
        return result
    }

    /// Describes the version `id` of `document`; `indexed` is what the history index says of it
    /// (its entry and previous versions) when it lists it, else they are read from the history.
    func describe(_ id: OID, of document: DocumentPath, current: OID?, conflicts: Set<OID>, indexed: HistoryIndex.Version? = nil) throws -> DocumentVersion {
        let stamp = try stamp(id)
        let entry = try entry(of: document, at: id, indexed: indexed)
        return DocumentVersion(
            id: id.hex, document: document, deviceName: stamp.deviceName, deviceID: stamp.deviceID,
            modified: stamp.date, clock: stamp.clock, contentID: entry?.isFolder == true ? nil : entry?.id.hex,
            isDeleted: entry == nil || entry?.isFolder == true, isFolder: entry?.isFolder == true,
            size: try size(of: entry), isPackage: entry?.kind == .tree && entry?.isFolder != true, isCurrent: id == current,
            isConflict: conflicts.contains(id),
            resolves: stamp.trailers.resolved(document),
            renamedFrom: stamp.trailers.renamedFrom(document), renamedTo: stamp.trailers.renamedTo(document),
            replaces: try (indexed?.replaces ?? previousVersions(of: id, document: document)).map(\.hex))
    }

    /// The versions of `document` the history index lists at `head`, by commit (empty without
    /// an index there): describing a version from it reads no history and no folder.
    func indexedVersions(of document: DocumentPath, at head: OID?) -> [OID: HistoryIndex.Version] {
        index(at: head).map { index in
            Dictionary(index.versions(of: document.value).map { ($0.commit, $0) }, uniquingKeysWith: { a, _ in a })
        } ?? [:]
    }

    /// `document`'s entry in version `id`: from the history index when it lists the version,
    /// else read from the version's folder (in a wide folder, a tree of thousands of entries).
    func entry(of document: DocumentPath, at id: OID, indexed: HistoryIndex.Version?) throws -> TreeEntry? {
        guard let indexed else { return try documentEntry(document, in: tree(of: id), patterns: historyPatterns()) }
        return indexed.entry.map { TreeEntry(name: document.name, id: $0, mode: indexed.mode) }
    }

    /// The current version of `document` first, then each unresolved conflict version in canonical order.
    func contestedVersions(of document: DocumentPath) throws -> [DocumentVersion] {
        let head = try head()
        let headTree = try tree(of: head)
        let record = try conflictRecord(of: document, in: headTree)
        guard let current = try currentVersion(of: document, at: head) else {
            if record != nil {
                logger.warning("the conflict record of '\(document)' names no version of it: resolving it with the latest version removes the record")
            }
            throw ConcordError.noSuchDocument(document.value)
        }
        let others = try recordedVersions(record?.versions ?? [], of: document).subtracting([current])
        let indexed = indexedVersions(of: document, at: head)
        // A version made under a name the document had before a rename is described under it.
        func described(_ id: OID) throws -> DocumentVersion {
            if indexed[id] == nil, let name = try versionName(id, of: document), name != document {
                return try describe(id, of: name, current: current, conflicts: others)
            }
            return try describe(id, of: document, current: current, conflicts: others, indexed: indexed[id])
        }
        return [try described(current)] + (try others.map(described)).sorted { $0.rank < $1.rank }
    }

    /// Every version `document` ever had, newest first: from the history index when it is up to
    /// date (the cost follows the document's versions), else by walking the whole history.
    func versions(of document: DocumentPath) throws -> [DocumentVersion] {
        let head = try head()
        guard let head else { return [] }
        let record = try conflictRecord(of: document, in: tree(of: head))
        let conflicts = try recordedVersions(record?.versions ?? [], of: document)
        let current = try currentVersion(of: document, at: head)
        var described: [DocumentVersion] = []
        if let index = index(at: head) {
            described = try index.versions(of: document.value).map { version in
                try describe(version.commit, of: document, current: current, conflicts: conflicts, indexed: version)
            }
        } else {
            let patterns = try historyPatterns()
            try ConcordError.wrap("cannot walk the history") {
                try repository.walk(from: [head]) { id in
                    if try isVersion(id, of: document, patterns: patterns) {
                        described.append(try describe(id, of: document, current: current, conflicts: conflicts))
                    }
                    return true
                }
            }
        }
        for (id, name) in try formerVersions(of: document, at: head) {
            described.append(try describe(id, of: name, current: current, conflicts: conflicts, indexed: indexedVersions(of: name, at: head)[id]))
        }
        if described.isEmpty { throw ConcordError.noSuchDocument(document.value) }
        // Newest first by clock: a version's clock follows those it saw, and every device
        // orders the same versions the same way.
        return described.sorted { ($0.clock, $0.id) > ($1.clock, $1.id) }
    }

    /// The content of `document` at version `id` (nil: the current one); nil content for a deletion.
    /// - Throws: ``ConcordError/unknownVersion(_:document:)`` when `id` is not one of its versions.
    func content(of document: DocumentPath, version id: String?) throws -> DocumentContent? {
        try content(of: versionEntry(of: document, version: id))
    }

    /// The tree entry of `document` at version `id` (nil: the current one); nil for a deletion.
    func versionEntry(of document: DocumentPath, version id: String?) throws -> TreeEntry? {
        guard let id else {
            let headTree = try tree(of: head())
            guard let entry = try documentEntry(document, in: headTree), !entry.isFolder else {
                if try conflictRecord(of: document, in: headTree) != nil { return nil }
                if try documentEntry(document, in: headTree)?.isFolder == true {
                    throw ConcordError.invalidPath(document.value, reason: "it is a folder of documents, not a document")
                }
                throw ConcordError.noSuchDocument(document.value)
            }
            return entry
        }
        let version = try resolveVersionID(id, of: document)
        return try documentEntry(versionName(version, of: document) ?? document, in: tree(of: version))
    }

    /// The full id of a version of `document` given by its full or abbreviated (≥ 4 digits) id.
    func resolveVersionID(_ text: String, of document: DocumentPath) throws -> OID {
        let lowered = text.lowercased()
        guard lowered.count >= 4, lowered.allSatisfy(\.isHexDigit) else {
            throw ConcordError.unknownVersion(text, document: document.value)
        }
        if let oid = OID(hex: lowered), repository.contains(oid), (try? repository.commit(oid)) != nil,
            try isVersion(oid, of: document, patterns: historyPatterns())
        {
            return oid
        }
        let matches = try versions(of: document).filter { $0.id.hasPrefix(lowered) }
        guard matches.count == 1, let oid = OID(hex: matches[0].id) else {
            throw ConcordError.unknownVersion(text, document: document.value)
        }
        return oid
    }
}
