/// Whether a sync agent (`concord watch`, ``SyncAgent``) runs on a container.
public struct AgentStatus: Sendable, Hashable {
    /// True while an agent holds the container's agent lock (any process on this machine).
    public var isRunning: Bool
    /// The running agent's process id, when it recorded one.
    public var processID: Int?

    /// Makes a status.
    public init(isRunning: Bool, processID: Int?) {
        self.isRunning = isRunning
        self.processID = processID
    }
}
