internal import FoundationEssentials
internal import Git
internal import GitFormat
internal import GitStore

extension ContainerCore {
    /// Undoes the resolution that made `document`'s current version: one new version with the
    /// content that was current before it, and the versions it resolved back in contention (its
    /// conflict record), so that every device sees the conflict again. Nothing is lost: the
    /// resolution stays in the history.
    /// - Throws: ``ConcordError/noSuchDocument(_:)``; ``ConcordError/failed(_:)`` when the
    ///   document is in conflict, when its current version is not a resolution (it changed
    ///   since, or never was in conflict), or when that resolution settled other documents with
    ///   it (a file and a folder of one name); ``ConcordError/unsavedChanges(_:)``. Nothing is
    ///   changed then.
    func undoResolution(of document: DocumentPath) throws -> SaveResult {
        try writeInOnePack {
            let head = try history.head()
            let headTree = try history.tree(of: head)
            guard let head, let resolution = try history.currentVersion(of: document, at: head) else {
                throw ConcordError.noSuchDocument(document.value)
            }
            if try history.conflictRecord(of: document, in: headTree) != nil {
                throw ConcordError.failed("'\(document)' is in conflict: there is no resolution to undo (resolve it first)")
            }
            let known = try history.known(resolution)
            let resolved = known.trailers.resolved(document).compactMap(OID.init(hex:))
            guard !resolved.isEmpty, let parent = known.commit.parents.first else {
                throw ConcordError.failed(
                    "'\(document)' was not resolved last: its current version \(resolution.short) is no resolution (it changed since, or was never in conflict)")
            }
            guard known.trailers.resolvedDocuments == [document] else {
                throw ConcordError.failed("'\(document)' was resolved with other documents at once (a file and a folder of one name): undo is not possible for that resolution")
            }
            guard let before = try history.currentVersion(of: document, at: parent) else {
                throw ConcordError.failed("'\(document)' had no version before its resolution \(resolution.short)")
            }
            let entry = try history.documentEntry(document, in: history.tree(of: before))
            let current = try history.documentEntry(document, in: headTree)
            let others = Set(resolved).subtracting([before])
            guard !others.isEmpty else {
                throw ConcordError.failed("the resolution \(resolution.short) of '\(document)' put no other version aside: nothing to undo")
            }
            let record = ConflictRecord(document: document, versions: others)
            let recordBlob = try ConcordError.wrap("cannot write the conflict record") { try repository.writeBlob(record.data) }
            var updates: [TreeUpdate] = [.upsert(path: ConflictRecord.path(of: document), id: recordBlob, mode: TreeEntry.fileMode)]
            if let entry {
                if entry != current { updates.append(.upsert(path: document.value, id: entry.id, mode: entry.mode)) }
            } else if current != nil {
                updates.append(.remove(path: document.value))
            }
            let tree = try ConcordError.wrap("cannot write the tree") { try repository.updateTree(headTree, updates) }
            let unsaved = try checkout.unsavedPaths(from: headTree, to: tree)
            if !unsaved.isEmpty { throw ConcordError.unsavedChanges(unsaved) }
            var trailers = Trailers()
            trailers.add(Trailers.document, document.value)
            let commit = try commitMaker.commit(
                tree: tree, parents: [head], subject: "Undo the resolution \(resolution.short) of \(document.value)", trailers: trailers, updateMain: false)
            try checkout.advanceMain(from: head, to: commit, message: "concord: undo the resolution of \(document)")
            return SaveResult(document: document, version: commit.hex, isDeletion: entry == nil)
        }
    }
}

extension Container {
    /// Undoes the resolution that made `document`'s current version (the resolver page's undo):
    /// a new version with the content current before it, and the versions it resolved back in
    /// contention, on every device once synced. The resolution stays in the history.
    /// - Throws: ``ConcordError/failed(_:)`` when the document is in conflict, its current version
    ///   is not a resolution (it changed since), or that resolution settled other documents too;
    ///   ``ConcordError/noSuchDocument(_:)``, ``ConcordError/unsavedChanges(_:)``,
    ///   ``ConcordError/busy(_:)``. Nothing is changed then.
    @available(*, noasync, message: "blocks on disk: from async code, await the async form")
    @discardableResult
    public func undoResolution(of document: DocumentPath) throws -> SaveResult {
        try write(.saved) { try $0.undoResolution(of: document) }
    }

    /// The async form of the call above: the same work on a queue of its own (``Blocking``), so that the caller's
    /// executor (the main actor of an app) never waits on disk.
    @discardableResult
    public func undoResolution(of document: DocumentPath) async throws -> SaveResult {
        try await offloadWrite(.saved) { try $0.undoResolution(of: document) }
    }
}
