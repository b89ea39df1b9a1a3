internal import ConcordMerge
internal import FoundationEssentials
internal import Git
internal import GitFormat
internal import GitStore

extension ContainerCore {
    /// What a document is in `main` now: its content id and whether it is in conflict.
    func snapshot(of document: DocumentPath) throws -> (contentID: String?, inConflict: Bool) {
        let headTree = try history.tree(of: history.head())
        let entry = try history.documentEntry(document, in: headTree).flatMap { $0.isFolder ? nil : $0 }
        let record = try history.entry(ConflictRecord.path(of: document), in: headTree)
        return (entry?.id.hex, record != nil)
    }

    /// What made `main` what it is at `commit`, read from the commit: a resolution, a rename, an
    /// integration or another device's commit (a sync), else a save on this device.
    func cause(ofMain commit: String) throws -> DocumentChange.Cause {
        guard let id = OID(hex: commit) else { return .saved }
        let known = try history.known(id)
        if !known.trailers.resolvedDocuments.isEmpty { return .resolved }
        if !known.trailers.values(Trailers.renamed).isEmpty { return .moved }
        if known.commit.parents.count > 1 { return .synced }
        if let author = known.trailers.value(Trailers.device), author != device.id { return .synced }
        return .saved
    }

    /// The documents whose content or conflict record differs between two commits (by id).
    func changedDocuments(from old: String?, to new: String?) throws -> Set<DocumentPath> {
        let oldTree = try history.tree(of: old.flatMap(OID.init(hex:)))
        let newTree = try history.tree(of: new.flatMap(OID.init(hex:)))
        let patterns = try history.packagePatterns(in: newTree)
        let changes = try ConcordError.wrap("cannot compare trees") { try repository.diff(oldTree, newTree) }
        var result = Set<DocumentPath>()
        for change in changes {
            if change.path.hasPrefix(ConflictRecord.folder + "/") {
                if let document = ConflictRecord.document(fromName: String(change.path.dropFirst(ConflictRecord.folder.count + 1))) {
                    result.insert(document)
                }
            } else if let (document, _) = history.document(containing: change.path, patterns: patterns) {
                result.insert(document)
            }
        }
        return result
    }

    /// The listing entry of one document in `main`; nil when it is neither there nor in conflict.
    /// With `lockState`, a write waiting for another writer shows as `editingDisabled`.
    func info(of document: DocumentPath, lockState: Bool = true) throws -> DocumentInfo? {
        let headTree = try history.tree(of: history.head())
        let entry = try history.documentEntry(document, in: headTree).flatMap { $0.isFolder ? nil : $0 }
        let inConflict = try history.entry(ConflictRecord.path(of: document), in: headTree) != nil
        guard entry != nil || inConflict else { return nil }
        let busy = lockState && WaitingWrite.isWriteWaiting(gitDirectory: repository.gitDirectory)
        let state = DocumentState(inConflict: inConflict, writeWaiting: busy)
        return DocumentInfo(path: document, isPackage: entry?.kind == .tree, state: state, contentID: entry?.id.hex ?? "")
    }
}
