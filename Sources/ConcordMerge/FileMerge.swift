public import Foundation

/// Merges three versions of one file with a policy, the way a git merge driver does: the file
/// in the work tree is the current version, the incoming one is the other.
public struct FileMerge: Sendable {
    /// What a file merge produced.
    public struct Result: Sendable, Hashable {
        /// The merged content, or the marked-up content when ``isMerged`` is false.
        public var content: Data
        /// True when the policy merged without a person.
        public var isMerged: Bool
        /// Why a person is needed; nil when merged.
        public var reason: String?

        /// Creates a result.
        public init(content: Data, isMerged: Bool, reason: String?) {
            self.content = content
            self.isMerged = isMerged
            self.reason = reason
        }
    }

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
        [
            MergeVersion(content: .file(current), id: "current", deviceName: currentLabel, deviceID: "current",
                         clock: HybridLogicalClock(milliseconds: 0), isCurrent: true),
            MergeVersion(content: .file(other), id: "other", deviceName: otherLabel, deviceID: "other",
                         clock: HybridLogicalClock(milliseconds: 1)),
        ]
    }

    /// Merges `current` and `other` against `base` (an empty base, as git passes when the file
    /// has no common ancestor, counts as none).
    /// - Returns: the content to write over the current file, and whether it merged.
    public func merge(base: Data, current: Data, other: Data) -> Result {
        let outcome = policy.merge(base: base.isEmpty ? nil : .file(base), versions: versions(current: current, other: other))
        switch outcome {
        case let .merged(content):
            return Result(content: content?.fileData ?? Data(), isMerged: true, reason: nil)
        case let .needsPerson(reason, markedUp):
            return Result(content: markedUp?.fileData ?? current, isMerged: false, reason: reason)
        }
    }
}
