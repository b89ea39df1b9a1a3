/// What the sync agent reads between operations to decide what to do next.
struct AgentView: Sendable {
    /// This device's `main` and its `origin/main` (what the last fetch saw of the cloud).
    var main: String?
    var origin: String?
    /// The cloud's `main`, when the cloud is a folder on this machine.
    var cloud: String?
    var airplane: Bool
    var conflicts: Set<DocumentPath>
}
