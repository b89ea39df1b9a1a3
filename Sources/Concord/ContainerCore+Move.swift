internal import FoundationEssentials
internal import Git
internal import GitFormat
internal import GitStore

/// Renames (`concord mv`): one commit that removes the old name and adds the new one with the
/// same content, the new name's group of trailers saying `Concord-Renamed: OLD`, so that the
/// document's history goes on through the old name's (``History``), and an edit another device
/// makes concurrently under the old name lands on the new one (``Integration``).
extension ContainerCore {
    /// Renames `old` to `new`, and moves its file (or package) in the work tree, through the
    /// checkout journal: an interruption is finished by the next writer.
    /// - Throws: ``ConcordError/noSuchDocument(_:)`` when `old` is not a document;
    ///   ``ConcordError/documentExists(_:)`` when `new` is a document or a folder in `main` or
    ///   anything in the work tree; ``ConcordError/invalidPath(_:reason:)`` for a name inside a
    ///   package, below a file, or a twin of an existing one; ``ConcordError/ignored(_:rule:)``
    ///   for a new name the ignore rules leave out; ``ConcordError/unsavedChanges(_:)`` when the
    ///   work tree holds changes of `old` not saved; ``ConcordError/failed(_:)`` when `old` is in
    ///   conflict. Nothing is changed then.
    func move(_ old: DocumentPath, to new: DocumentPath) throws -> SaveResult {
        try writer.write {
            let head = try history.head()
            let headTree = try history.tree(of: head)
            let isPackage = try history.checkDocument(old, in: headTree)
            guard let entry = try history.documentEntry(old, in: headTree), !entry.isFolder else {
                if try history.holdsFolder(old.value, in: headTree) {
                    throw ConcordError.invalidPath(old.value, reason: "it is a folder of documents; rename the documents in it")
                }
                throw ConcordError.noSuchDocument(old.value)
            }
            guard new != old else { throw ConcordError.documentExists(new.value) }
            if try history.checkDocument(new, in: headTree) != isPackage {
                throw ConcordError.invalidPath(
                    new.value, reason: isPackage ? "a package's new name must match a package pattern too" : "it matches a package pattern, and '\(old)' is a file")
            }
            if try history.entry(new.value, in: headTree) != nil || workTree.kind(new.value) != .missing {
                throw ConcordError.documentExists(new.value)
            }
            if let file = try history.fileAbove(new, in: headTree) {
                throw ConcordError.invalidPath(new.value, reason: "'\(file)' is a document, not a folder")
            }
            try history.refuseTwin(of: new, in: headTree)
            if let rule = ignoreRules().ignoringRule(new.value, isFolder: isPackage) { throw ConcordError.ignored(new.value, rule: rule) }
            if try history.conflictRecord(of: old, in: headTree) != nil {
                throw ConcordError.failed("'\(old)' is in conflict: resolve it first, then rename it")
            }
            if try !workMatches(old, entry, isPackage: isPackage) { throw ConcordError.unsavedChanges([old.value]) }
            let tree = try ConcordError.wrap("cannot write the tree") {
                try repository.updateTree(headTree, [.remove(path: old.value), .upsert(path: new.value, id: entry.id, mode: entry.mode)])
            }
            var trailers = Trailers()
            trailers.add(Trailers.document, new.value)
            trailers.add(Trailers.renamed, old.value)
            let id = try commitMaker.commit(
                tree: tree, parents: head.map { [$0] } ?? [], subject: "Rename \(old) to \(new)", trailers: trailers, updateMain: false)
            try checkout.advanceMain(from: head, to: id, message: "concord: rename \(old) to \(new)")
            return SaveResult(document: new, version: id.hex, isDeletion: false)
        }
    }

    /// True when the work tree holds `document` as `entry` says: its file, or its package's files
    /// (those the ignore rules leave out aside).
    private func workMatches(_ document: DocumentPath, _ entry: TreeEntry, isPackage: Bool) throws -> Bool {
        guard isPackage else { return try checkout.workFileMatches(document.value, entry) }
        guard workTree.kind(document.value) == .directory else { return false }
        return try workTree.entry(of: document, isPackage: true, storingIn: repository, ignoring: ignoreRules(), limits: limits())?.id == entry.id
    }
}
