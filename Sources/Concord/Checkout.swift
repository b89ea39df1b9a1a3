internal import FoundationEssentials
internal import Git
internal import GitFormat
internal import GitStore
internal import Logging

/// Keeps the work tree equal to `main`, file by file, for only the paths that changed.
///
/// Before `main` moves, the two tree ids are written to `.git/concord/checkout` (the journal);
/// the file is removed once the work tree is updated. A command interrupted in between (kill -9,
/// power cut) leaves the file behind, and the next writer finishes the update first.
struct Checkout {
    /// The repository whose trees are written out.
    let repository: Repository
    /// The work tree kept equal to `main`.
    let workTree: WorkTree
    /// Reads `main` and the trees of commits.
    let history: History
    /// Where paths this device cannot hold are reported.
    let logger: Logger

    /// The journal of the work-tree update in progress.
    var journalPath: String { repository.gitDirectory + ContainerLayout.checkoutJournal }

    /// The paths whose work-tree files differ from the `old` tree (not saved), among those
    /// that moving to `new` would write. Ignored paths are left out: their edits are never
    /// saved, and the update leaves such a file as it is instead of refusing to move.
    func unsavedPaths(from old: OID?, to new: OID?) throws -> [String] {
        let changes = try ConcordError.wrap("cannot compare trees") { try repository.diff(old, new) }
        let rules = IgnoreRules.current(workTree: workTree, gitDirectory: repository.gitDirectory)
        return try changes.filter { !isConcordRecord($0.path) && rules.ignoringRule($0.path, isFolder: false) == nil }.compactMap { change in
            try workFileMatches(change.path, change.old, in: old) || workFileMatches(change.path, change.new, in: new) ? nil : change.path
        }
    }

    /// Moves the work tree from the `old` tree to the `new` one. Unless `force`, a file that
    /// differs from both (a change not saved) is left alone and reported. A path this device
    /// cannot hold (its file system refuses the name, a link stands in the way) is skipped with
    /// a warning, never fatal: the update always finishes. The files are written as one
    /// ``WorkTree/Batch``: on the disk, each whole, when this returns.
    /// - Returns: the paths left alone.
    @discardableResult
    func update(from old: OID?, to new: OID?, force: Bool) throws -> [String] {
        try apply(try ConcordError.wrap("cannot compare trees") { try repository.diff(old, new) }, from: old, to: new, force: force)
    }

    /// ``update(from:to:force:)`` for the differences between the two trees.
    @discardableResult
    private func apply(_ changes: [TreeChange], from old: OID?, to new: OID?, force: Bool) throws -> [String] {
        var skipped: [String] = []
        let batch = WorkTree.Batch(workTree)
        defer { batch.discard() }
        for change in changes where !isConcordRecord(change.path) {
            if !force, try !workFileMatches(change.path, change.old, in: old) {
                if try !workFileMatches(change.path, change.new, in: new) { skipped.append(change.path) }
                continue
            }
            do {
                if let entry = change.new {
                    guard entry.kind == .blob, !entry.isSymlink else { continue }
                    try ConcordError.wrap("cannot read \(change.path)") {
                        try batch.write(change.path, blob: entry.id, mode: entry.mode, from: repository)
                    }
                } else {
                    try batch.remove(change.path)
                }
            } catch let error as ConcordError {
                guard case .notWritable = error else { throw error }
                refuse(change.path, error, into: &skipped)
            }
            CrashPoint.reach("checkout:file")
        }
        try batch.finish()
        for (path, error) in batch.refused { refuse(path, error, into: &skipped) }
        return skipped
    }

    private func refuse(_ path: String, _ error: ConcordError, into skipped: inout [String]) {
        logger.warning("not written to the work tree: \(error.description)")
        skipped.append(path)
    }

    /// Moves `main` from `old` to `new` (compare-and-swap) and the work tree with it, so that an
    /// interruption at any point is finished by the next writer.
    func advanceMain(from old: OID?, to new: OID, message: String) throws {
        let oldTree = try history.tree(of: old)
        let newTree = try history.tree(of: new)
        try writeJournal(old: oldTree, new: newTree)
        CrashPoint.reach("checkout:journal-written")
        try ConcordError.wrap("cannot move main") {
            if let old {
                try repository.setReference(ContainerLayout.main, to: new, expected: old, message: message)
            } else {
                try repository.forceReference(ContainerLayout.main, to: new, message: message)
            }
        }
        try update(from: oldTree, to: newTree, force: false)
        CrashPoint.reach("checkout:done")
        finishJournal()
    }

    /// Finishes a work-tree update that an interrupted command left pending.
    func recoverPending() throws {
        guard let text = try? String(contentsOfFile: journalPath, encoding: .utf8) else { return }
        let ids = text.split(separator: "\n").map { OID(hex: String($0)) }
        if ids.count == 2, let current = try history.tree(of: history.head()) {
            // Finish only if main reached the new tree; else the old tree is still current.
            if ids[1] == current {
                let changes = try ConcordError.wrap("cannot compare trees") { try repository.diff(ids[0], ids[1]) }
                try apply(changes, from: ids[0], to: ids[1], force: false)
                // An update killed between writing its files and renaming them left them behind.
                workTree.removeTemporaryFiles(inFolders: Set(changes.map { TreePath(workTree.split($0.path).folder) }).map(\.value))
            }
        }
        finishJournal()
    }

    private func writeJournal(old: OID?, new: OID?) throws {
        try Self.writeJournal(in: repository, old: old, new: new)
    }

    /// Records, before `main` moves, that the work tree goes from the `old` tree to the `new` one
    /// (a clone records it before its first checkout, and removes it with ``finishJournal()``).
    static func writeJournal(in repository: Repository, old: OID?, new: OID?) throws {
        let text = "\(old?.hex ?? "none")\n\(new?.hex ?? "none")\n"
        try WorkTree(root: String(repository.gitDirectory.dropLast())).write(ContainerLayout.checkoutJournal, data: Data(text.utf8))
    }

    /// Removes the journal once the work tree is updated.
    func finishJournal() {
        try? FileManager.default.removeItem(atPath: journalPath)
    }

    /// True for Concord's internal records (conflict records, the key-value store): they live
    /// in the tree only, never in the work tree.
    private func isConcordRecord(_ path: String) -> Bool {
        path.hasPrefix(ConflictRecord.folder + "/") || path.hasPrefix(KeyValueEntry.folder + "/")
    }

    /// True when the work tree holds at `path` what `tree` does there, as far as the file
    /// `entry` goes: that file (``workFileMatches(_:_:)``), or for no file, nothing or a folder
    /// that `tree` holds too, each of its files unchanged but those the ignore rules leave out
    /// (a file replaced by a folder, or the reverse, loses nothing that was not saved).
    func workFileMatches(_ path: String, _ entry: TreeEntry?, in tree: OID?) throws -> Bool {
        guard entry == nil, workTree.kind(path) == .directory else { return try workFileMatches(path, entry) }
        guard let folder = try history.entry(path, in: tree), folder.kind == .tree else { return false }
        var saved: [TreePath: TreeEntry] = [:]
        try ConcordError.wrap("cannot read a folder") {
            try history.visitFiles(tree: folder.id, prefix: path) { file, entry in saved[TreePath(file)] = entry }
        }
        let rules = IgnoreRules.current(workTree: workTree, gitDirectory: repository.gitDirectory)
        guard let files = try? workTree.packageFiles(path, ignoring: rules) else { return false }
        for file in files.map({ "\(path)/\($0)" }) {
            guard let entry = saved[TreePath(file)], try workFileMatches(file, entry) else { return false }
        }
        return true
    }

    /// True when the work-tree file at `path` holds exactly `entry` (nil: there is no file).
    func workFileMatches(_ path: String, _ entry: TreeEntry?) throws -> Bool {
        let kind = workTree.kind(path)
        guard let entry else { return kind == .missing }
        guard kind == .file else { return entry.isSymlink && kind == .missing }
        let id = try workTree.withOpenFile(path) { descriptor in
            try ConcordError.wrap("cannot read \(path)") { try Repository.blobID(ofDescriptor: descriptor) }
        }
        return id == entry.id
    }
}
