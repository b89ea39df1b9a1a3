internal import ConcordMerge
internal import FoundationEssentials
internal import Git
internal import GitFormat
internal import GitStore

/// A name that one side holds as a file (or package) and the other as a folder of documents.
///
/// A tree cannot hold both. The rule, the same on every device whichever side is local: the
/// folder keeps the name while any document stays in it (they are documents of their own, most
/// of them in no conflict), and the file is set aside: the name's current version is the
/// folder's (the version that made it a folder, on the side that holds it; the local side's when
/// both do), and every version of the file that would have been current, or was in contention,
/// waits in the name's conflict record. A folder version never waits in a record, and while the
/// name is a folder a deletion does not either (it agrees with the folder): a file deleted on one
/// side and replaced by a folder on the other is no conflict.
extension Integration {
    /// A document's entries on each side, and the one the integration keeps
    /// (``History/documentEntry(_:in:)``: a folder of documents is one entry).
    struct Entries {
        var local: TreeEntry?
        var remote: TreeEntry?
        var merged: TreeEntry?

        /// True when a side holds the name as a folder.
        var involvesFolder: Bool { local?.isFolder == true || remote?.isFolder == true }
    }

    /// Makes each name that a side holds as a folder agree with the merged tree: a folder while
    /// any document stays below it, else what its merge chose.
    /// - Returns: for each name set aside for its folder, the versions to keep in contention.
    func settleFolders(
        _ entries: inout [DocumentPath: Entries], currents: inout [DocumentPath: OID], losers: inout [DocumentPath: OID],
        local: Side, remote: Side, patterns: PackagePatterns
    ) throws -> [DocumentPath: [OID]] {
        var setAside: [DocumentPath: [OID]] = [:]
        // Deepest first: whether a name keeps its folder depends on what stays below it.
        let involved = entries.filter(\.value.involvesFolder).keys.sorted { ($0.components.count, $1) > ($1.components.count, $0) }
        for document in involved {
            guard let decided = entries[document] else { continue }
            let folderSide = decided.local?.isFolder == true ? local.head : remote.head
            if try keepsDocuments(below: document, entries: entries, local: local, patterns: patterns) {
                guard decided.merged?.isFolder != true else { continue }
                let winner = try currents[document] ?? history.currentVersion(of: document, at: local.head)
                setAside[document] = [winner, losers[document]].compactMap { $0 }
                losers[document] = nil
                currents[document] = try history.currentVersion(of: document, at: folderSide)
                entries[document]?.merged = decided.local?.isFolder == true ? decided.local : decided.remote
            } else if decided.merged?.isFolder == true {
                // Every document of the folder is gone: the name holds what the other side has.
                let otherSide = decided.local?.isFolder == true ? remote.head : local.head
                entries[document]?.merged = decided.local?.isFolder == true ? decided.remote : decided.local
                currents[document] = try history.currentVersion(of: document, at: otherSide)
                losers[document] = nil
            }
        }
        return setAside
    }

    /// The updates that turn the local tree into the merged one, name by name: a file or
    /// package written, a name the local side holds as a file removed when it is to be nothing
    /// or a folder (the folder's documents come with their own updates), and nothing for the
    /// documents below a name that becomes a file (the file replaces the folder whole).
    static func treeUpdates(_ entries: [DocumentPath: Entries]) -> [TreeUpdate] {
        var updates: [TreeUpdate] = []
        var files: [String] = []
        for (document, decided) in entries.sorted(by: { $0.key < $1.key }) where decided.merged != decided.local {
            if let merged = decided.merged, !merged.isFolder {
                updates.append(.upsert(path: document.value, id: merged.id, mode: merged.mode))
                if decided.local?.isFolder == true { files.append(document.value + "/") }
            } else if let local = decided.local, !local.isFolder {
                updates.append(.remove(path: document.value))
            }
        }
        guard !files.isEmpty else { return updates }
        return updates.filter { update in !files.contains { update.path.hasPrefix($0) } }
    }

    /// The versions among `versions` that hold a file or package of `document`: a folder version
    /// never waits in a record, nor a deletion while `current` is a folder.
    func contentVersions(_ versions: Set<OID>, of document: DocumentPath, current: OID?) throws -> Set<OID> {
        let currentIsFolder = try current.map { try history.documentEntry(document, in: history.tree(of: $0))?.isFolder == true } ?? false
        return try versions.filter { version in
            guard let entry = try history.documentEntry(document, in: history.tree(of: version)) else { return !currentIsFolder }
            return !entry.isFolder
        }
    }

    /// True when a document stays below `document` in the merged tree: one the integration
    /// keeps, or one the local side holds there that neither side changed.
    private func keepsDocuments(below document: DocumentPath, entries: [DocumentPath: Entries], local: Side, patterns: PackagePatterns) throws -> Bool {
        let prefix = document.value + "/"
        for (other, decided) in entries where other.value.hasPrefix(prefix) {
            if let merged = decided.merged, !merged.isFolder { return true }
        }
        guard let folder = try history.entry(document.value, in: local.tree), folder.kind == .tree else { return false }
        var kept = false
        try history.visitFiles(tree: folder.id, prefix: document.value) { file, _ in
            guard !kept, let owner = history.document(containing: file, patterns: patterns)?.document else { return }
            if entries[owner] == nil { kept = true }
        }
        return kept
    }
}
