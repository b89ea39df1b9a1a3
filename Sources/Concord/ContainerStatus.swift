/// What needs attention in a container, at a glance (`concord status`): conflicts, versions
/// waiting to go up, files left out, the last sync and the sync agent.
public struct ContainerStatus: Sendable, Hashable {
    /// A document in conflict and its versions in contention.
    public struct ConflictEntry: Sendable, Hashable {
        /// The document.
        public var document: DocumentPath
        /// The current version first, then every unresolved conflict version: none of them is
        /// only in the history while the document is in conflict.
        public var versions: [DocumentVersion]
    }

    /// A document with versions saved on this device that the cloud has not received.
    public struct WaitingDocument: Sendable, Hashable {
        /// The document.
        public var document: DocumentPath
        /// How many of its versions wait.
        public var versions: Int
    }

    /// The documents in conflict, by path.
    public var conflicts: [ConflictEntry]
    /// The documents whose versions wait to go up, by path.
    public var waiting: [WaitingDocument]
    /// Every version (commit) made here that the cloud has not received, settings included.
    public var waitingVersions: Int
    /// The work tree's entries that are not saved, by path.
    public var skipped: [SkippedFile]
    /// How the last sync ended; nil when this device never synced.
    public var lastSync: LastSync?
    /// Whether a sync agent runs on the container.
    public var agent: AgentStatus
    /// True while airplane mode is on.
    public var isAirplaneModeOn: Bool
}
