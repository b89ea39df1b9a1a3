/// Ignore rules: what the work tree holds that is never saved (``IgnoreRule``, ``IgnoredEntry``).
extension Container {
    /// Every work-tree entry that is not saved, with the reason, sorted by path: what ignore
    /// rules match (an ignored folder once), files over the size limit, symbolic links, empty
    /// folders, invalid names. Reads the work tree; writes nothing.
    /// - Throws: ``ConcordError`` when the container cannot be read.
    @available(*, noasync, message: "blocks on disk: from async code, await the async form")
    public func ignoredEntries() throws -> [IgnoredEntry] {
        try read { try $0.ignoredEntries() }
    }

    /// The async form of the call above: the same work on a queue of its own (``Blocking``), so that the caller's
    /// executor (the main actor of an app) never waits on disk.
    public func ignoredEntries() async throws -> [IgnoredEntry] {
        try await offloadRead { try $0.ignoredEntries() }
    }

    /// The rule that leaves `document` out (a rule matching it, or a folder it is in); nil when
    /// it is not ignored. An ignored document keeps its versions; its edits are not saved.
    /// - Throws: ``ConcordError`` when the container cannot be read.
    @available(*, noasync, message: "blocks on disk: from async code, await the async form")
    public func ignoringRule(of document: DocumentPath) throws -> IgnoreRule? {
        try read { try $0.ignoringRule(of: document) }
    }

    /// The async form of the call above: the same work on a queue of its own (``Blocking``), so that the caller's
    /// executor (the main actor of an app) never waits on disk.
    public func ignoringRule(of document: DocumentPath) async throws -> IgnoreRule? {
        try await offloadRead { try $0.ignoringRule(of: document) }
    }
}
