internal import Git
internal import GitFormat
public import ConcordMerge

extension Container {
    /// Saves a version of `document` from the work tree: one commit that changes only that
    /// document, authored as this device. Cost does not grow with the container's size.
    ///
    /// A path the ignore rules leave out (``ignoringRule(of:)``) is refused unless `force`.
    /// - Returns: the new version, or no version when the content was already current.
    /// - Throws: ``ConcordError/missingInput(_:)`` when the work tree lacks it,
    ///   ``ConcordError/ignored(_:rule:)``, ``ConcordError/busy(_:)``.
    @available(*, noasync, message: "blocks on disk: from async code, await the async form")
    @discardableResult
    public func save(_ document: DocumentPath, force: Bool = false) throws -> SaveResult {
        try write(.saved) { try $0.save(document, content: nil, force: force) }
    }

    /// The async form of the call above: the same work on a queue of its own (``Blocking``), so that the caller's
    /// executor (the main actor of an app) never waits on disk.
    @discardableResult
    public func save(_ document: DocumentPath, force: Bool = false) async throws -> SaveResult {
        try await offloadWrite(.saved) { try $0.save(document, content: nil, force: force) }
    }

    /// Writes `content` to the work tree (atomically) and saves it as a version of `document`;
    /// a path the ignore rules leave out is refused unless `force`, before anything is written.
    /// - Throws: ``ConcordError/ignored(_:rule:)``, ``ConcordError/busy(_:)``.
    @available(*, noasync, message: "blocks on disk: from async code, await the async form")
    @discardableResult
    public func save(_ document: DocumentPath, content: DocumentContent, force: Bool = false) throws -> SaveResult {
        try write(.saved) { try $0.save(document, content: content, force: force) }
    }

    /// The async form of the call above: the same work on a queue of its own (``Blocking``), so that the caller's
    /// executor (the main actor of an app) never waits on disk.
    @discardableResult
    public func save(_ document: DocumentPath, content: DocumentContent, force: Bool = false) async throws -> SaveResult {
        try await offloadWrite(.saved) { try $0.save(document, content: content, force: force) }
    }

    /// Saves the deletion of `document` as a version, and removes it from the work tree.
    /// - Throws: ``ConcordError/noSuchDocument(_:)``; ``ConcordError/unsavedChanges(_:)`` when
    ///   the work-tree file holds changes that were never saved.
    @available(*, noasync, message: "blocks on disk: from async code, await the async form")
    @discardableResult
    public func remove(_ document: DocumentPath) throws -> SaveResult {
        try write(.saved) { try $0.remove(document) }
    }

    /// The async form of the call above: the same work on a queue of its own (``Blocking``), so that the caller's
    /// executor (the main actor of an app) never waits on disk.
    @discardableResult
    public func remove(_ document: DocumentPath) async throws -> SaveResult {
        try await offloadWrite(.saved) { try $0.remove(document) }
    }

    /// Renames `document` to `newName`, keeping its history: one commit that removes the old
    /// name and adds the new one with the same content (its trailers say so), and the work-tree
    /// file (or package) moved with it. ``versions(of:)`` of the new name goes on through the old
    /// name's versions, and an edit another device makes concurrently under the old name lands on
    /// the new one when the two meet (no conflict).
    /// - Returns: the rename's version of the new name.
    /// - Throws: ``ConcordError/noSuchDocument(_:)`` when `document` does not exist;
    ///   ``ConcordError/documentExists(_:)`` when `newName` is taken (a document, a folder, or
    ///   anything in the work tree); ``ConcordError/invalidPath(_:reason:)`` for a new name inside a
    ///   package or below a file, a twin of an existing name, or a package renamed to a name that
    ///   no package pattern matches; ``ConcordError/ignored(_:rule:)``;
    ///   ``ConcordError/unsavedChanges(_:)`` when the work tree holds edits of it not saved;
    ///   ``ConcordError/failed(_:)`` when it is in conflict; ``ConcordError/busy(_:)``. Nothing is
    ///   changed then.
    @available(*, noasync, message: "blocks on disk: from async code, await the async form")
    @discardableResult
    public func move(_ document: DocumentPath, to newName: DocumentPath) throws -> SaveResult {
        try write(.moved) { try $0.move(document, to: newName) }
    }

    /// The async form of the call above: the same work on a queue of its own (``Blocking``), so that the caller's
    /// executor (the main actor of an app) never waits on disk.
    @discardableResult
    public func move(_ document: DocumentPath, to newName: DocumentPath) async throws -> SaveResult {
        try await offloadWrite(.moved) { try $0.move(document, to: newName) }
    }

    /// The documents in the container (optionally those whose path or name matches a glob), with their states.
    @available(*, noasync, message: "blocks on disk: from async code, await the async form")
    public func documents(matching pattern: String? = nil) throws -> [DocumentInfo] {
        try read { try $0.documents(matching: pattern) }
    }

    /// The async form of the call above: the same work on a queue of its own (``Blocking``), so that the caller's
    /// executor (the main actor of an app) never waits on disk.
    public func documents(matching pattern: String? = nil) async throws -> [DocumentInfo] {
        try await offloadRead { try $0.documents(matching: pattern) }
    }

    /// Every version `document` ever had, newest first, the current one and the unresolved
    /// ones flagged.
    @available(*, noasync, message: "blocks on disk: from async code, await the async form")
    public func versions(of document: DocumentPath) throws -> [DocumentVersion] {
        try read { try $0.history.versions(of: document) }
    }

    /// The async form of the call above: the same work on a queue of its own (``Blocking``), so that the caller's
    /// executor (the main actor of an app) never waits on disk.
    public func versions(of document: DocumentPath) async throws -> [DocumentVersion] {
        try await offloadRead { try $0.history.versions(of: document) }
    }

    /// The versions in contention: the current version first, then each unresolved conflict
    /// version (only the current one when the document is not in conflict).
    @available(*, noasync, message: "blocks on disk: from async code, await the async form")
    public func unresolvedVersions(of document: DocumentPath) throws -> [DocumentVersion] {
        try read { try $0.history.contestedVersions(of: document) }
    }

    /// The async form of the call above: the same work on a queue of its own (``Blocking``), so that the caller's
    /// executor (the main actor of an app) never waits on disk.
    public func unresolvedVersions(of document: DocumentPath) async throws -> [DocumentVersion] {
        try await offloadRead { try $0.history.contestedVersions(of: document) }
    }

    /// The content of `document` at a version (full or abbreviated id), or its current content.
    /// - Returns: nil when that version deleted the document.
    /// - Throws: ``ConcordError/unknownVersion(_:document:)``, ``ConcordError/noSuchDocument(_:)``.
    @available(*, noasync, message: "blocks on disk: from async code, await the async form")
    public func content(of document: DocumentPath, version: String? = nil) throws -> DocumentContent? {
        try read { try $0.history.content(of: document, version: version) }
    }

    /// The async form of the call above: the same work on a queue of its own (``Blocking``), so that the caller's
    /// executor (the main actor of an app) never waits on disk.
    public func content(of document: DocumentPath, version: String? = nil) async throws -> DocumentContent? {
        try await offloadRead { try $0.history.content(of: document, version: version) }
    }

    /// Calls `body` with the bytes of a file document's version (nil: the current one) without
    /// copying them, so that printing a large document costs its size in memory once.
    /// - Returns: false when that version is a deletion or a package (nothing was passed to `body`).
    /// Blocking: a streaming read for command-line code and the like (an app reads a document
    /// with the async ``content(of:version:)``).
    @available(*, noasync, message: "blocks on disk: from async code, use the async content(of:version:)")
    @discardableResult
    public func withFileContent(of document: DocumentPath, version: String? = nil, _ body: (UnsafeRawBufferPointer) throws -> Void) throws -> Bool {
        try read { core in
            guard let entry = try core.history.versionEntry(of: document, version: version), entry.kind == .blob else { return false }
            try ConcordError.wrap("cannot read object \(entry.id.short)") { try core.repository.withBlob(entry.id, body) }
            return true
        }
    }

    /// The documents in conflict. Reads the conflict records only: the cost does not grow
    /// with the number of documents.
    @available(*, noasync, message: "blocks on disk: from async code, await the async form")
    public func conflicts() throws -> [Conflict] {
        try read { try $0.history.conflicts() }
    }

    /// The async form of the call above: the same work on a queue of its own (``Blocking``), so that the caller's
    /// executor (the main actor of an app) never waits on disk.
    public func conflicts() async throws -> [Conflict] {
        try await offloadRead { try $0.history.conflicts() }
    }

    /// Fetches the cloud's versions, integrates them with this device's (recording a conflict
    /// for each document changed on both sides), and pushes the result.
    /// - Throws: ``ConcordError/offline(reason:waiting:)`` in airplane mode or when the cloud
    ///   cannot be reached (nothing is lost; sync again later), ``ConcordError/unsavedChanges(_:)``,
    ///   ``ConcordError/cloudKeptMoving(attempts:)``, ``ConcordError/cloudRefused(_:)`` (credentials,
    ///   host key or certificate), ``ConcordError/damagedFromCloud(url:reason:)`` and
    ///   ``ConcordError/refusedFromCloud(commit:path:reason:)`` when what the cloud sent cannot be
    ///   taken (the device keeps its own versions).
    @discardableResult
    public func sync() async throws -> SyncReport {
        try await sync(yielding: nil)
    }

    /// ``sync()`` that ends after a lost race when `yielding` says so, throwing ``SyncYield``
    /// (the agent's, to save an edit made meanwhile).
    func sync(yielding: (@Sendable () -> Bool)?) async throws -> SyncReport {
        let progress = options.progress
        syncsUnderWay.withLock { $0 += 1 }
        observer.check()
        defer {
            syncsUnderWay.withLock { $0 -= 1 }
            observer.check()
        }
        return try await offloadWrite(.synced, showsWaiting: false) { try $0.sync(progress: progress, yielding: yielding) }
    }
}

extension Container {
    /// Saves every document added, changed or removed in the work tree, in one commit (see
    /// `SaveAllResult`). Symbolic links and invalid names are skipped and reported, never
    /// followed; what the ignore rules leave out is passed over without a word, and an ignored
    /// document keeps its versions (neither its edits nor its removal are saved).
    @available(*, noasync, message: "blocks on disk: from async code, await the async form")
    @discardableResult
    public func saveAll() throws -> SaveAllResult {
        try write(.saved) { try $0.saveAll() }
    }

    /// The async form of the call above: the same work on a queue of its own (``Blocking``), so that the caller's
    /// executor (the main actor of an app) never waits on disk.
    @discardableResult
    public func saveAll() async throws -> SaveAllResult {
        try await offloadWrite(.saved) { try $0.saveAll() }
    }
}
