internal import ConcordMerge
internal import FoundationEssentials
internal import Git
internal import GitFormat
internal import GitStore

/// `save --all`: every document added, changed or removed in the work tree, saved together.
///
/// One commit for all of them, not one per document: the batch is atomic (an interrupted save
/// leaves all or nothing), an import of a large folder stays one commit, and each document
/// still gets a version (the commit changes its content).
extension ContainerCore {
    /// Saves what changed in the work tree; with `scope`, compares only the paths it names (and
    /// everything below the folders among them) — the sync agent knows what changed. The files
    /// `held` (still being written) are left as main has them, and so is a package holding one.
    func saveAll(scope: SaveScope? = nil, holding held: Set<String> = []) throws -> SaveAllResult {
        // Thousands of new objects: one pack synced once, not one synced file each.
        try writeInOnePack { try saveAllUnlocked(scope: scope, held: held) }
    }

    private func saveAllUnlocked(scope: SaveScope?, held: Set<String>) throws -> SaveAllResult {
        let head = try history.head()
        let headTree = try history.tree(of: head)
        let patterns = try history.packagePatterns(in: headTree)
        var scan = Scan(rules: ignoreRules(), limits: try limits(), held: held)
        try scanFolder("", tree: headTree.flatMap { $0 }, patterns: patterns, scan: &scan, isRoot: true, scope: scope)
        var result = SaveAllResult(
            version: nil, added: scan.added.sorted(), changed: scan.changed.sorted(),
            removed: scan.removed.sorted(), skipped: scan.skipped.sorted { $0.path < $1.path })
        guard !scan.updates.isEmpty else { return result }
        CrashPoint.reach("save-all:scanned")
        let tree = try ConcordError.wrap("cannot write the tree") { try repository.updateTree(headTree, scan.updates) }
        let count = scan.added.count + scan.changed.count + scan.removed.count
        result.renamed = try renames(scan, in: headTree)
        var trailers = Trailers()
        for (new, old) in result.renamed.sorted(by: { $0.key < $1.key }) {
            trailers.add(Trailers.document, new.value)
            trailers.add(Trailers.renamed, old.value)
        }
        let id = try commitMaker.commit(tree: tree, parents: head.map { [$0] } ?? [], subject: "Save \(count) document\(count == 1 ? "" : "s")", trailers: trailers)
        result.version = id.hex
        return result
    }

    /// The renames among what a scan found: a document gone under one name whose content (the
    /// same file, or the same package) is new under another, when no other document removed or
    /// added in the scan has that content. An empty file, and a document in conflict (resolve it
    /// first), are never taken for renamed.
    private func renames(_ scan: Scan, in headTree: OID?) throws -> [DocumentPath: DocumentPath] {
        struct Key: Hashable {
            var id: OID
            var mode: UInt32
        }
        func byContent(_ entries: [DocumentPath: TreeEntry]) -> [Key: [DocumentPath]] {
            Dictionary(grouping: entries.filter { $0.value.id != Self.emptyBlob }.keys) { Key(id: entries[$0]!.id, mode: entries[$0]!.mode) }
        }
        let gone = byContent(scan.removedEntries), new = byContent(scan.addedEntries)
        guard !gone.isEmpty, !new.isEmpty else { return [:] }
        let inConflict = Set(try history.conflictRecords(in: headTree).map(\.document))
        var result: [DocumentPath: DocumentPath] = [:]
        for (key, names) in new where names.count == 1 {
            guard let old = gone[key], old.count == 1, !inConflict.contains(old[0]) else { continue }
            result[names[0]] = old[0]
        }
        return result
    }

    /// git's id of the empty file.
    static let emptyBlob = OID(hex: "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391")!

    private struct Scan {
        let rules: IgnoreRules
        /// The size limits, read once for the whole scan.
        let limits: ArrivalCheck.Limits
        /// Files still being written: left as they are in main.
        let held: Set<String>
        var updates: [TreeUpdate] = []
        var added: [DocumentPath] = []
        var changed: [DocumentPath] = []
        var removed: [DocumentPath] = []
        var skipped: [SaveAllResult.Skipped] = []
        /// The entries in `main` of the documents removed, and in the work tree of those added
        /// (files and packages that are documents themselves): where renames are found.
        var removedEntries: [DocumentPath: TreeEntry] = [:]
        var addedEntries: [DocumentPath: TreeEntry] = [:]
    }

    /// Compares `folder` with its tree; within a `scope` (nil: everything), only the entries it reaches.
    ///
    /// A new name that is a twin of one the folder keeps (``TwinFinder``) is skipped with its
    /// reason, and the rest is saved: a file a person made by mistake (`Note.txt` beside
    /// `note.txt`) is reported on the warning line, not allowed to block every other save —
    /// the sync agent saves with this scan, and refusing all would stall it until someone
    /// renamed the file, while the skipped file is safe in the work tree.
    private func scanFolder(_ folder: String, tree: OID?, patterns: PackagePatterns, scan: inout Scan, isRoot: Bool = false, scope: SaveScope? = nil) throws {
        let entries = try tree.map { id in try ConcordError.wrap("cannot read the tree") { try repository.entries(ofTree: id) } } ?? []
        var inTree = Dictionary(entries.map { (TreePath($0.name), $0) }, uniquingKeysWith: { a, _ in a })
        let names = workTree.names(inFolder: folder)
        var twins = TwinFinder(entries: entries, names: names, folder: folder, scope: scope)
        for name in names {
            if name.hasPrefix(WorkTree.temporaryPrefix) { continue }
            if isRoot && ContainerLayout.isReservedAtRoot(name) {
                inTree[TreePath(name)] = nil
                continue
            }
            let path = folder.isEmpty ? name : "\(folder)/\(name)"
            if let scope, !scope.reaches(path) {
                inTree[TreePath(name)] = nil
                continue
            }
            let kind = workTree.kind(path)
            // An ignored document keeps its versions: neither its edits nor its removal are saved.
            if scan.rules.ignoringRuleHere(path, isFolder: kind == .directory) != nil {
                inTree[TreePath(name)] = nil
                continue
            }
            guard let document = try? DocumentPath(path) else {
                scan.skipped.append(.init(path: path.debugDescription, reason: "not a valid document name (not UTF-8, or a control character)"))
                inTree[TreePath(name)] = nil
                continue
            }
            let old = inTree.removeValue(forKey: TreePath(name))
            if old == nil, let twin = twins.twin(ofNew: name) {
                let existing = folder.isEmpty ? twin : "\(folder)/\(twin)"
                let isFolder = workTree.kind(existing) == .directory && !patterns.matches(twin)
                scan.skipped.append(.init(path: path, reason: PathRules.twinProblem(path, existing: existing, what: isFolder ? "folder" : "document")))
                continue
            }
            let isPackage = patterns.matches(name)
            if !scan.held.isEmpty, scan.held.contains(path) || (isPackage && scan.held.contains { $0.hasPrefix(path + "/") }) { continue }
            switch kind {
            case .directory where !isPackage:
                try scanFolder(
                    path, tree: old?.kind == .tree ? old?.id : nil, patterns: patterns, scan: &scan,
                    scope: scope?.paths.contains(path) == true ? nil : scope)
                if let old, old.kind != .tree {
                    scan.updates.append(.remove(path: path))
                    scan.removed.append(document)
                    scan.removedEntries[document] = old
                }
            case .directory, .file:
                let entry: TreeEntry?
                do {
                    entry = try workTree.entry(
                        of: document, isPackage: isPackage, storingIn: repository, ignoring: scan.rules, limits: scan.limits, kind: kind)
                } catch let error as ConcordError {
                    scan.skipped.append(.init(path: path, reason: error.description))
                    continue
                }
                guard let entry else { continue }
                if old?.id == entry.id && old?.mode == entry.mode { continue }
                let replacesFolder = old?.kind == .tree && !isPackage
                if let old, replacesFolder {
                    // A folder of documents replaced by a file: its documents are deleted.
                    scan.updates.append(.remove(path: path))
                    try history.visitFiles(tree: old.id, prefix: path) { file, _ in
                        if let owner = history.document(containing: file, patterns: patterns)?.document, scan.removed.last != owner {
                            scan.removed.append(owner)
                        }
                    }
                }
                scan.updates.append(.upsert(path: path, id: entry.id, mode: entry.mode))
                if old == nil || replacesFolder {
                    scan.added.append(document)
                    scan.addedEntries[document] = entry
                } else {
                    scan.changed.append(document)
                }
            case .symlink, .behindLink:
                scan.skipped.append(.init(path: path, reason: "a symbolic link; links are never followed"))
            case .other, .missing:
                scan.skipped.append(.init(path: path, reason: "not a regular file"))
            }
        }
        for (name, entry) in inTree.map({ ($0.key.value, $0.value) }) {
            let path = folder.isEmpty ? name : "\(folder)/\(name)"
            if let scope, !scope.reaches(path) { continue }
            if scan.rules.ignoringRuleHere(path, isFolder: entry.kind == .tree) != nil { continue }
            scan.updates.append(.remove(path: path))
            if entry.kind == .tree, !patterns.matches(name) {
                try history.visitFiles(tree: entry.id, prefix: path) { file, fileEntry in
                    if let owner = history.document(containing: file, patterns: patterns)?.document, scan.removed.last != owner {
                        scan.removed.append(owner)
                        if owner.value == file { scan.removedEntries[owner] = fileEntry }
                    }
                }
            } else {
                scan.removed.append(DocumentPath(unchecked: path))
                scan.removedEntries[DocumentPath(unchecked: path)] = entry
            }
        }
    }
}
