internal import FoundationEssentials

extension Container {
    /// Starts the sync agent on this container: it saves edits made in the work tree and syncs,
    /// until stopped (see ``SyncAgent``).
    /// - Returns: the running agent; its ``SyncAgent/events`` tell what it does.
    /// - Throws: ``ConcordError/failed(_:)`` when an agent already runs on this container (in
    ///   this process or another one).
    public func watch(_ options: SyncAgent.Options = SyncAgent.Options()) throws -> SyncAgent {
        try SyncAgent(container: self, options: options)
    }
}
