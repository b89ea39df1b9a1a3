/// One version given to a merge policy.
public struct MergeVersion: Sendable, Hashable {
    /// The content; nil when this version deleted the document.
    public var content: DocumentContent?
    /// The version's id (Concord uses the commit id).
    public var id: String
    /// The name of the device that saved it.
    public var deviceName: String
    /// The stable id of the device that saved it.
    public var deviceID: String
    /// The hybrid logical clock of the save.
    public var clock: HybridLogicalClock
    /// True for the device's current version.
    public var isCurrent: Bool

    /// Creates a version.
    public init(
        content: DocumentContent?, id: String, deviceName: String, deviceID: String,
        clock: HybridLogicalClock, isCurrent: Bool = false
    ) {
        self.content = content
        self.id = id
        self.deviceName = deviceName
        self.deviceID = deviceID
        self.clock = clock
        self.isCurrent = isCurrent
    }

    /// The order every device agrees on (``LatestWins/Rank``): clock, then device id, then
    /// version id; the last is the latest.
    public static func canonicalOrder(_ lhs: MergeVersion, _ rhs: MergeVersion) -> Bool {
        lhs.rank < rhs.rank
    }
}

/// What a merge policy decided.
public enum MergeOutcome: Sendable, Hashable {
    /// Merged without a person; nil content means the document stays deleted.
    case merged(DocumentContent?)
    /// A person must decide: why, and a best-effort marked-up content to start from.
    case needsPerson(reason: String, markedUp: DocumentContent?)
}

/// A merge policy: a pure, deterministic function from the common ancestor and the versions
/// in contention to a merged content, or "needs a person".
///
/// Policies receive the versions in ``MergeVersion/canonicalOrder(_:_:)``, so two devices
/// merging the same inputs produce identical bytes. Callers that hold three byte buffers and no
/// versions' metadata use ``merge(base:current:other:currentLabel:otherLabel:)`` instead.
public protocol MergePolicy: Sendable {
    /// The name users give on the command line (`--policy NAME`) and in `.concord/policies`.
    var name: String { get }
    /// Merges `versions` (two or more, in canonical order) against `base` (nil: none, or absent).
    func merge(base: DocumentContent?, versions: [MergeVersion]) -> MergeOutcome
    /// The same merge as ``merge(base:versions:)``, with a note on how it was reached when a
    /// person would want to know (the default implementation gives none).
    func decide(base: DocumentContent?, versions: [MergeVersion]) -> MergeDecision
}

extension MergePolicy {
    /// The outcome of ``merge(base:versions:)``, without a note.
    public func decide(base: DocumentContent?, versions: [MergeVersion]) -> MergeDecision {
        MergeDecision(outcome: merge(base: base, versions: versions))
    }
}

/// A merge outcome, and how the policy reached it when that is worth telling a person.
public struct MergeDecision: Sendable, Hashable {
    /// What the policy decided.
    public var outcome: MergeOutcome
    /// For example "taken from git's line merge: …"; nil when there is nothing to add.
    public var note: String?

    /// Creates a decision.
    public init(outcome: MergeOutcome, note: String? = nil) {
        self.outcome = outcome
        self.note = note
    }
}
