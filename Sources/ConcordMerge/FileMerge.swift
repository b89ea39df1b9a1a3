public import FoundationEssentials

/// Merges three versions of one file with a policy, the way a git merge driver does: the file
/// in the work tree is the current version, the incoming one is the other, and an empty base (git
/// passes one when the file has no common ancestor) counts as none.
public struct FileMerge: Sendable {
    /// What a file merge produced.
    public typealias Result = MergeResult

    /// The policy that merges.
    public var policy: any MergePolicy
    /// The device name the current version's conflict markers show.
    public var currentLabel: String
    /// The device name the other version's conflict markers show.
    public var otherLabel: String

    /// Creates a file merge.
    public init(policy: any MergePolicy, currentLabel: String = "current", otherLabel: String = "other") {
        self.policy = policy
        self.currentLabel = currentLabel
        self.otherLabel = otherLabel
    }

    /// The two versions as the policy sees them: the current one first, the other one later
    /// (so latest-wins takes the other version, as `git merge -X theirs` would).
    public func versions(current: Data, other: Data) -> [MergeVersion] {
        MergeResult.versions(current: current, other: other, currentLabel: currentLabel, otherLabel: otherLabel)
    }

    /// Merges `current` and `other` against `base` (empty: no common ancestor) with
    /// ``MergePolicy/merge(base:current:other:currentLabel:otherLabel:)``.
    /// - Returns: the content to write over the current file, and whether it merged.
    public func merge(base: Data, current: Data, other: Data) -> Result {
        policy.merge(
            base: base.isEmpty ? nil : base, current: current, other: other,
            currentLabel: currentLabel, otherLabel: otherLabel)
    }
}
