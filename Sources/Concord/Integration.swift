internal import ConcordMerge
internal import FoundationEssentials
internal import Git
internal import GitFormat
internal import GitStore

/// Integrates two diverged histories in process, by diffing trees from their merge base.
///
/// The result depends only on the two histories: every device integrating the same histories
/// writes the same tree and the same conflict records. Which side is local matters in one case
/// only: when both sides changed a document to the same content, the local version stays current
/// (the content is the same either way). A side that did not change a document takes the other
/// side's current version, even one with the content it holds: the other side chose it knowing
/// this one. A name that is a file on one side and a folder of documents on the other is
/// settled by one rule (``settleFolders(_:currents:losers:local:remote:patterns:)``), and a rename
/// on one side carries the other side's change of the old name (``CarriedRename``).
struct Integration {
    /// The repository the merged tree and its objects go into.
    let repository: Repository
    /// Reads both histories: versions, conflict records, the latest-wins order.
    let history: History
    /// Writes the integration's commit as this device.
    let commitMaker: CommitMaker

    /// One side of the integration: its head, its tree, and what changed there since the base.
    struct Side {
        var head: OID
        var tree: OID?
        var documents = Set<DocumentPath>()
        var records = Set<DocumentPath>()
        var meta = Set<TreePath>()
    }

    /// Merges the histories of `local` and `remote` into one commit whose parents are both.
    /// - Returns: the integration commit (its parents: the local head, then the remote one); `main`
    ///   has not moved. The documents it found changed concurrently are in its `Concord-Conflict`
    ///   trailers; what a sync reports as new conflicts comes from the conflict records it changed.
    /// - Throws: ``ConcordError/failed(_:)`` when they share no commit (another container's cloud).
    func integrate(local: OID, remote: OID) throws -> OID {
        guard let base = try ConcordError.wrap("cannot find the merge base", { try repository.mergeBase(local, remote) }) else {
            throw ConcordError.failed("the cloud holds an unrelated history: it is not this container's cloud")
        }
        let baseTree = try history.tree(of: base)
        history.integrating = [local, remote]
        defer { history.integrating = nil }
        var localSide = Side(head: local, tree: try history.tree(of: local))
        var remoteSide = Side(head: remote, tree: try history.tree(of: remote))
        let lines = try [baseTree, localSide.tree, remoteSide.tree].flatMap { try history.packagePatterns(in: $0).lines }
        let patterns = PackagePatterns(Array(Set(lines.map(ExactText.init))).sorted().map(\.value))
        try collect(&localSide, from: baseTree, patterns: patterns)
        try collect(&remoteSide, from: baseTree, patterns: patterns)

        var updates: [TreeUpdate] = []
        var entries: [DocumentPath: Entries] = [:]
        var losers: [DocumentPath: OID] = [:]
        var currents: [DocumentPath: OID] = [:]
        var newConflicts: [DocumentPath] = []
        var sameContent: [DocumentPath: OID] = [:]

        let resolvedLocal = try resolvedDocuments(localSide, baseTree: baseTree)
        let resolvedRemote = try resolvedDocuments(remoteSide, baseTree: baseTree)
        let localLog = try sideLog(from: base, to: local), remoteLog = try sideLog(from: base, to: remote)
        let savedLocal = localLog.saved, savedRemote = remoteLog.saved
        let carried = try carriedRenames(local: localSide, remote: remoteSide, base: base, baseTree: baseTree, localLog: localLog, remoteLog: remoteLog)
        let carriedNew = Dictionary(carried.map { ($0.new, $0) }, uniquingKeysWith: { a, _ in a })
        let candidates = localSide.documents.union(remoteSide.documents).union(resolvedLocal).union(resolvedRemote)
            .union(savedLocal).union(savedRemote)
        // The commits only one side has, read at the first question: a commit only one side has
        // is followed by nothing only the other side has, which answers most questions below
        // without a walk of the graph each.
        var onlyOneSide: (local: Set<OID>, remote: Set<OID>)?
        func follows(_ later: OID, _ earlier: OID) throws -> Bool {
            if onlyOneSide == nil {
                onlyOneSide = (
                    Set(try history.commits(reachableFrom: local, hiding: [remote])), Set(try history.commits(reachableFrom: remote, hiding: [local]))
                )
            }
            if let sides = onlyOneSide,
                sides.local.contains(earlier) && sides.remote.contains(later) || sides.remote.contains(earlier) && sides.local.contains(later)
            {
                return false
            }
            return try history.descends(later, from: earlier)
        }
        for document in candidates.sorted() {
            let baseEntry = try history.documentEntry(document, in: baseTree)
            let localEntry = try history.documentEntry(document, in: localSide.tree)
            let remoteEntry = try history.documentEntry(document, in: remoteSide.tree)
            entries[document] = Entries(local: localEntry, remote: remoteEntry, merged: localEntry)
            if let rename = carried.first(where: { $0.old == document }) {
                // Renamed on one side: the other side's change of it lands on the new name, and
                // its current version is the rename's, whichever side is local.
                entries[document]?.merged = nil
                let renamer = rename.renamedLocally ? local : remote
                if let current = try history.currentVersion(of: document, at: renamer) {
                    currents[document] = current
                    if !rename.renamedLocally { sameContent[document] = current }
                }
                continue
            }
            if let rename = carriedNew[document] {
                let outcome = try mergeCarried(rename, local: localSide, remote: remoteSide, base: base)
                entries[document]?.merged = outcome.merged
                if let current = outcome.current { currents[document] = current }
                if let loser = outcome.loser {
                    losers[document] = loser
                    newConflicts.append(document)
                }
                if outcome.namesCurrent, let current = outcome.current { sameContent[document] = current }
                continue
            }
            let localChanged =
                try localEntry != baseEntry || resolvedLocal.contains(document)
                || savedLocal.contains(document) && hasNewVersion(document, at: local, since: base)
            let remoteChanged =
                try remoteEntry != baseEntry || resolvedRemote.contains(document)
                || savedRemote.contains(document) && hasNewVersion(document, at: remote, since: base)
            guard remoteChanged else { continue }
            if !localChanged || localEntry == remoteEntry {
                entries[document]?.merged = remoteEntry
                if !localChanged { currents[document] = try history.currentVersion(of: document, at: remote) }
                if localEntry == remoteEntry, let chosen = try currents[document] ?? history.currentVersion(of: document, at: local),
                    try chosen != history.currentVersion(of: document, at: local) || chosen != history.currentVersion(of: document, at: remote)
                {
                    sameContent[document] = chosen
                }
                continue
            }
            guard let localVersion = try history.currentVersion(of: document, at: local),
                let remoteVersion = try history.currentVersion(of: document, at: remote)
            else { continue }
            if try follows(remoteVersion, localVersion) {
                entries[document]?.merged = remoteEntry
                currents[document] = remoteVersion
                continue
            }
            if try follows(localVersion, remoteVersion) { continue }
            let remoteWins = try history.isLater(remoteVersion, than: localVersion)
            if remoteWins { entries[document]?.merged = remoteEntry }
            currents[document] = remoteWins ? remoteVersion : localVersion
            losers[document] = remoteWins ? localVersion : remoteVersion
            newConflicts.append(document)
        }

        // A name a side holds as a folder of documents: the folder keeps it while any document
        // stays in it, and a file for that name waits in the conflict record.
        let involved = Set(entries.filter(\.value.involvesFolder).keys)
        let setAside = try settleFolders(&entries, currents: &currents, losers: &losers, local: localSide, remote: remoteSide, patterns: patterns)
        updates += Self.treeUpdates(entries)

        for document in localSide.records.union(remoteSide.records).union(losers.keys).union(setAside.keys).sorted() {
            let recordPath = ConflictRecord.path(of: document)
            let merged = ConflictRecord.merge(
                base: try history.conflictRecord(of: document, in: baseTree)?.versions ?? [],
                local: try history.conflictRecord(of: document, in: localSide.tree)?.versions ?? [],
                remote: try history.conflictRecord(of: document, in: remoteSide.tree)?.versions ?? [])
            var versions = try history.recordedVersions(merged, of: document).union(losers[document].map { [$0] } ?? []).union(setAside[document] ?? [])
            let current = try currents[document] ?? history.currentVersion(of: document, at: local)
            if let current {
                versions.remove(current)
                let contenders = versions.union([current])
                versions = try versions.filter { version in
                    try !contenders.contains { try $0 != version && history.isSuperseded(version, byLineageOf: $0, document: document, follows: follows) }
                }
            }
            if involved.contains(document) { versions = try contentVersions(versions, of: document, current: current) }
            if versions.isEmpty {
                newConflicts.removeAll { $0 == document }
                if try history.entry(recordPath, in: localSide.tree) != nil { updates.append(.remove(path: recordPath)) }
            } else {
                if setAside[document] != nil, !newConflicts.contains(document) { newConflicts.append(document) }
                let data = ConflictRecord(document: document, versions: versions).data
                let blob = try ConcordError.wrap("cannot write a conflict record") { try repository.writeBlob(data) }
                updates.append(.upsert(path: recordPath, id: blob, mode: TreeEntry.fileMode))
            }
        }

        for path in localSide.meta.union(remoteSide.meta).sorted().map(\.value) {
            let baseEntry = try history.entry(path, in: baseTree)
            let localEntry = try history.entry(path, in: localSide.tree)
            let remoteEntry = try history.entry(path, in: remoteSide.tree)
            if remoteEntry == baseEntry || remoteEntry == localEntry { continue }
            if localEntry == baseEntry {
                updates.append(remoteEntry.map { .upsert(path: path, id: $0.id, mode: $0.mode) } ?? .remove(path: path))
                continue
            }
            if path.hasPrefix(KeyValueEntry.folder + "/") {
                if try history.keyValueEntry(remoteEntry)?.wins(over: history.keyValueEntry(localEntry) ?? .lost) ?? false, let remoteEntry {
                    updates.append(.upsert(path: path, id: remoteEntry.id, mode: remoteEntry.mode))
                }
                continue
            }
            let lines = try mergeLines(base: baseEntry, local: localEntry, remote: remoteEntry)
            let blob = try ConcordError.wrap("cannot write \(path)") { try repository.writeBlob(lines) }
            updates.append(.upsert(path: path, id: blob, mode: TreeEntry.fileMode))
        }

        let mergedTree = try ConcordError.wrap("cannot write the integrated tree") { try repository.updateTree(localSide.tree, updates) }
        var trailers = Trailers()
        for document in newConflicts.sorted() { trailers.add(Trailers.conflict, document.value) }
        for (document, version) in sameContent.sorted(by: { $0.key < $1.key }) {
            trailers.add(Trailers.current, "\(version.hex) \(document.value)")
        }
        let subject =
            newConflicts.isEmpty
            ? "Integrate \(remote.short) into \(local.short)"
            : "Integrate \(remote.short) into \(local.short): \(newConflicts.count) in conflict"
        return try commitMaker.commit(tree: mergedTree, parents: [local, remote], subject: subject, trailers: trailers, updateMain: false)
    }

    /// True when `document`'s current version at `head` is not the one it had at `base`.
    private func hasNewVersion(_ document: DocumentPath, at head: OID, since base: OID) throws -> Bool {
        try history.currentVersion(of: document, at: head) != history.currentVersion(of: document, at: base)
    }

    private func collect(_ side: inout Side, from baseTree: OID?, patterns: PackagePatterns) throws {
        let changes = try ConcordError.wrap("cannot compare trees") { try repository.diff(baseTree, side.tree) }
        for change in changes {
            if change.path.hasPrefix(ConflictRecord.folder + "/") {
                let name = String(change.path.dropFirst(ConflictRecord.folder.count + 1))
                if let document = ConflictRecord.document(fromName: name) { side.records.insert(document) }
            } else if ContainerLayout.isConcords(change.path) {
                side.meta.insert(TreePath(change.path))
            } else if let (document, _) = history.document(containing: change.path, patterns: patterns) {
                side.documents.insert(document)
            }
        }
    }

    /// Documents whose record lost a version on this side since the base: resolved there.
    private func resolvedDocuments(_ side: Side, baseTree: OID?) throws -> Set<DocumentPath> {
        var result = Set<DocumentPath>()
        for document in side.records {
            let before = try history.conflictRecord(of: document, in: baseTree)?.versions ?? []
            let after = try history.conflictRecord(of: document, in: side.tree)?.versions ?? []
            if !before.subtracting(after).isEmpty { result.insert(document) }
        }
        return result
    }

    /// Line-set merge of a small configuration file: base lines kept on both sides, in base
    /// order, then the lines either side added, sorted by bytes — the same whichever side is
    /// local. Lines compare by their bytes: a pattern rewritten in another Unicode normalization
    /// matches other names, so it is another line.
    private func mergeLines(base: TreeEntry?, local: TreeEntry?, remote: TreeEntry?) throws -> Data {
        func lines(_ entry: TreeEntry?) throws -> [ExactText] {
            guard let entry else { return [] }
            let data = try ConcordError.wrap("cannot read a configuration file") { try repository.blob(entry.id) }
            return String(decoding: data, as: UTF8.self).lines().filter { !$0.isEmpty }.map(ExactText.init)
        }
        let baseLines = try lines(base), localLines = Set(try lines(local)), remoteLines = Set(try lines(remote))
        let kept = baseLines.filter { localLines.contains($0) && remoteLines.contains($0) }
        let added = localLines.union(remoteLines).subtracting(baseLines).sorted()
        var seen = Set<ExactText>()
        let result = (kept + added).filter { seen.insert($0).inserted }
        return Data((result.map(\.value).joined(separator: "\n") + "\n").utf8)
    }
}
