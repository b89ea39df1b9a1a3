extension Container {
    /// What needs attention in the container (`concord status`): the documents in conflict with
    /// their versions, the versions saved here that the cloud has not received, the work tree's
    /// entries that are not saved and why, how the last sync ended, whether a sync agent runs.
    /// A reader: it never waits for the container's lock.
    /// - Throws: ``ConcordError`` when the container cannot be read.
    @available(*, noasync, message: "blocks on disk: from async code, await the async form")
    public func status() throws -> ContainerStatus {
        try read { try $0.status() }
    }

    /// The async form of the call above: the same work on a queue of its own (``Blocking``), so that the caller's
    /// executor (the main actor of an app) never waits on disk.
    public func status() async throws -> ContainerStatus {
        try await offloadRead { try $0.status() }
    }

    /// How the last sync of this device ended (``LastSync``); nil when it never synced.
    public func lastSync() -> LastSync? {
        LastSync.read(gitDirectory: gitDirectory)
    }

    /// Whether a sync agent (`concord watch`, ``SyncAgent``) runs on this container, in any process.
    public func agentStatus() -> AgentStatus {
        ContainerCore.agentStatus(gitDirectory: gitDirectory)
    }
}
