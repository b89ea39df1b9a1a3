public import FoundationEssentials

extension MergePolicy {
    /// Merges three byte buffers, for callers that have no versions' metadata: `current` is the
    /// version being merged into, `other` the incoming one, which latest-wins policies (`latest`,
    /// `json-latest`) treat as the later.
    ///
    /// The versions are given to ``merge(base:versions:)`` as two files saved by devices named
    /// `currentLabel` and `otherLabel` (the names conflict markers and reasons show). A policy
    /// that merges packages needs a person for files, with a reason that says so.
    /// - Parameters:
    ///   - base: the common ancestor's bytes; nil when there is none.
    ///   - current: the current version's bytes.
    ///   - other: the other version's bytes.
    /// - Returns: the merged bytes; or, when a person must decide, the marked-up bytes (the current
    ///   bytes when the policy offers none) with the reason.
    public func merge(
        base: Data?, current: Data, other: Data, currentLabel: String = "current", otherLabel: String = "other"
    ) -> MergeResult {
        let versions = MergeResult.versions(current: current, other: other, currentLabel: currentLabel, otherLabel: otherLabel)
        let decision = decide(base: base.map(DocumentContent.file), versions: versions)
        switch decision.outcome {
        case let .merged(content):
            return MergeResult(content: content?.fileData ?? Data(), isMerged: true, reason: nil, note: decision.note)
        case let .needsPerson(reason, markedUp):
            return MergeResult(content: markedUp?.fileData ?? current, isMerged: false, reason: reason)
        }
    }
}

/// What a merge of byte buffers produced.
public struct MergeResult: Sendable, Hashable {
    /// The merged bytes, or the marked-up bytes when ``isMerged`` is false.
    public var content: Data
    /// True when the policy merged without a person.
    public var isMerged: Bool
    /// Why a person is needed; nil when merged.
    public var reason: String?
    /// How the policy reached the merge, when worth telling (see ``MergeDecision/note``).
    public var note: String?

    /// Creates a result.
    public init(content: Data, isMerged: Bool, reason: String?, note: String? = nil) {
        self.content = content
        self.isMerged = isMerged
        self.reason = reason
        self.note = note
    }

    /// Two file versions as a policy sees them: the current one first in canonical order, the
    /// other one later.
    static func versions(current: Data, other: Data, currentLabel: String, otherLabel: String) -> [MergeVersion] {
        [
            MergeVersion(
                content: .file(current), id: "current", deviceName: currentLabel, deviceID: "current",
                clock: HybridLogicalClock(milliseconds: 0), isCurrent: true),
            MergeVersion(
                content: .file(other), id: "other", deviceName: otherLabel, deviceID: "other",
                clock: HybridLogicalClock(milliseconds: 1)),
        ]
    }
}
