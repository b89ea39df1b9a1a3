public import ConcordMerge

/// Everything a person needs to decide a conflict (``Container/contention(of:)``): the versions
/// in contention with their contents, the common ancestor they were all made from, what each
/// merge policy would make of them, and the policy `.concord/policies` selects.
///
/// It is computed the way ``Container/resolve(_:using:dryRun:)-(DocumentPath,_,_)`` computes a
/// merge: the same versions, in the same order, against the same ancestor, so a preview is the
/// content that resolving with its policy saves.
public struct Contention: Sendable {
    /// A version in contention and its content.
    public struct Version: Sendable, Hashable {
        /// The version: device, date, clock, size.
        public var version: DocumentVersion
        /// Its content; nil for a deletion or a folder of documents.
        public var content: DocumentContent?
    }

    /// The common ancestor of the versions in contention, the base every merge starts from.
    public struct Ancestor: Sendable, Hashable {
        /// The ancestor's version (a version of the document, or, when the versions' lines of
        /// edits share none, the commit git's merge base names, which may not have changed it).
        public var version: DocumentVersion
        /// Its content; nil when the document did not exist there.
        public var content: DocumentContent?
    }

    /// What one merge policy makes of the versions in contention.
    public struct Preview: Sendable, Hashable {
        /// The policy's name, as `.concord/policies` and `resolve --policy` take it.
        public var policy: String
        /// Its outcome: the merged content, or why a person is needed with the marked-up content
        /// (conflict markers naming the devices) where the policy can give one.
        public var outcome: MergeOutcome
        /// How the policy reached it, when worth telling (``MergeDecision/note``).
        public var note: String?

        /// True when the policy merged without a person.
        public var isMerged: Bool {
            if case .merged = outcome { return true }
            return false
        }

        /// The content to start a person's edit from: the merge, else the marked-up content;
        /// nil when the merge is a deletion or the policy gave nothing to start from.
        public var content: DocumentContent? {
            switch outcome {
            case let .merged(content): content
            case let .needsPerson(_, markedUp): markedUp
            }
        }
    }

    /// The document in conflict.
    public var document: DocumentPath
    /// The versions in contention: the current version first, then each unresolved version in
    /// the latest-wins order (as ``Container/unresolvedVersions(of:)`` lists them).
    public var versions: [Version]
    /// The common ancestor; nil when the versions share none (two devices added the document).
    public var ancestor: Ancestor?
    /// Each named policy's preview (``MergePolicies/all``, in that order).
    public var previews: [Preview]
    /// The preview of the policy `.concord/policies` (or the defaults) selects for the document:
    /// what `resolve(using: .mergeBySelection)` would save.
    public var selected: Preview
    /// The line of `.concord/policies` that selects it; nil when the defaults do.
    public var selectingRule: PolicyRules.Rule?

    /// The preview of the policy with this name; nil when it is none of ``previews``.
    public func preview(_ policy: String) -> Preview? {
        previews.first { $0.policy == policy }
    }
}
