extension Container {
    /// What a person needs to resolve `document`: every version in contention with its device,
    /// date, clock, size and content; their common ancestor (the base a merge starts from, the
    /// same one ``resolve(_:using:dryRun:)-(DocumentPath,_,_)`` merges against); each named merge
    /// policy's preview, saying which need a person and showing where; and the policy
    /// `.concord/policies` selects. Reads only: nothing changes, and it never waits behind a
    /// write of this process.
    /// - Returns: the document's contention.
    /// - Throws: ``ConcordError/noSuchDocument(_:)``, ``ConcordError/notInConflict(_:)``, and
    ///   ``ConcordError/failed(_:)`` for a `.concord/policies` line that cannot be read.
    @available(*, noasync, message: "blocks on disk: from async code, await the async form")
    public func contention(of document: DocumentPath) throws -> Contention {
        try read { try $0.contention(of: document) }
    }

    /// The async form of the call above: the same work on a queue of its own (``Blocking``), so that the caller's
    /// executor (the main actor of an app) never waits on disk or on the merges of the previews.
    public func contention(of document: DocumentPath) async throws -> Contention {
        try await offloadRead { try $0.contention(of: document) }
    }
}
