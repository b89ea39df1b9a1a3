extension Container {
    /// Resolves `document`: computes the content from the current and unresolved versions,
    /// saves it as the new current version in one commit whose trailers name the versions it
    /// resolves, removes those versions from the document's versions and clears the state.
    /// - Parameters:
    ///   - document: the document in conflict.
    ///   - resolution: how to compute its new content.
    ///   - dryRun: say what would be kept and removed, change nothing.
    /// - Throws: ``ConcordError/notInConflict(_:)``, ``ConcordError/noSuchDocument(_:)``,
    ///   ``ConcordError/notAContestedVersion(_:document:)``, ``ConcordError/unknownVersion(_:document:)``,
    ///   ``NeedsPersonError`` when a merge needs a person (nothing changed).
    @available(*, noasync, message: "blocks on disk: from async code, await the async form")
    @discardableResult
    public func resolve(_ document: DocumentPath, using resolution: Resolution, dryRun: Bool = false) throws -> ResolveReport {
        try resolve([document], using: resolution, dryRun: dryRun)[0]
    }

    /// The async form of the call above: the same work on a queue of its own (``Blocking``), so that the caller's
    /// executor (the main actor of an app) never waits on disk.
    @discardableResult
    public func resolve(_ document: DocumentPath, using resolution: Resolution, dryRun: Bool = false) async throws -> ResolveReport {
        try await background { try self.resolve(document, using: resolution, dryRun: dryRun) }
    }

    /// Resolves several documents the same way in one commit (`concord resolve --all`): every
    /// one of them, or none when one cannot be resolved.
    /// - Parameters:
    ///   - documents: documents in conflict (a document given twice is resolved once).
    ///   - resolution: how to compute each one's new content.
    ///   - dryRun: say what would be kept and removed, change nothing.
    /// - Returns: one report per document, in the order given; all name the same new version.
    /// - Throws: the errors of ``resolve(_:using:dryRun:)-(DocumentPath,_,_)`` for the first document that
    ///   cannot be resolved; nothing is changed then.
    @available(*, noasync, message: "blocks on disk: from async code, await the async form")
    @discardableResult
    public func resolve(_ documents: [DocumentPath], using resolution: Resolution, dryRun: Bool = false) throws -> [ResolveReport] {
        try write(.resolved) { try $0.resolve(documents, using: resolution, dryRun: dryRun) }
    }

    /// The async form of the call above: the same work on a queue of its own (``Blocking``), so that the caller's
    /// executor (the main actor of an app) never waits on disk.
    @discardableResult
    public func resolve(_ documents: [DocumentPath], using resolution: Resolution, dryRun: Bool = false) async throws -> [ResolveReport] {
        try await offloadWrite(.resolved) { try $0.resolve(documents, using: resolution, dryRun: dryRun) }
    }
}
