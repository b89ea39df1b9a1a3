internal import Git
internal import GitFormat

/// What a sync did.
public struct SyncReport: Sendable, Hashable {
    /// What happened with the histories.
    public enum Outcome: String, Sendable, Hashable {
        /// Both sides already had the same history.
        case upToDate
        /// Only this device had new versions: they went up.
        case pushed
        /// Only the cloud had new versions: this device moved forward.
        case fastForwarded
        /// Both had new versions: they were integrated, then pushed.
        case integrated
    }

    /// What happened.
    public var outcome: Outcome
    /// Documents whose current content changed on this device.
    public var updatedDocuments: [DocumentPath]
    /// Documents that entered the in-conflict state (or gained a version in contention) in this sync.
    public var newConflicts: [DocumentPath]
    /// Every document in conflict after the sync.
    public var conflicts: [DocumentPath]
    /// Commits sent to the cloud.
    public var pushedCommits: Int
    /// Fetch-and-integrate rounds needed because the cloud moved meanwhile.
    public var attempts: Int
    /// Documents in conflict that their `auto` rule in `.concord/policies` resolved in this sync
    /// (one resolution commit, which went up with the rest), each with what was kept or merged.
    public var autoResolved: [ResolveReport] = []
    /// Documents that entered the in-conflict state in this sync, whose `auto` rule left them
    /// in conflict (a merge that needs a person, an edit not saved yet), with why.
    public var autoResolveFailures: [AutoResolveFailure] = []
}

/// Counts reported while a sync or clone transfers objects.
public struct SyncProgress: Sendable, Hashable {
    /// Objects the cloud will send.
    public var totalObjects: Int
    /// Objects received so far.
    public var receivedObjects: Int
    /// Bytes received so far.
    public var receivedBytes: Int
}

extension SyncProgress {
    static func forward(_ report: @escaping @Sendable (SyncProgress) -> Void) -> @Sendable (TransferProgress) -> Void {
        { report(SyncProgress(totalObjects: $0.totalObjects, receivedObjects: $0.receivedObjects, receivedBytes: $0.receivedBytes)) }
    }
}
