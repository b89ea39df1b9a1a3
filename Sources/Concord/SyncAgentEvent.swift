public import FoundationEssentials

/// Something the sync agent did or saw (see ``SyncAgent``).
public struct SyncAgentEvent: Sendable, Hashable {
    /// What happened.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The agent watches the work tree and the cloud; it comes once, first.
        case watching
        /// Edits in the work tree were saved as versions (the documents added, changed or removed).
        case saved
        /// This device's versions went up to the cloud (the documents they changed).
        case sent
        /// Other devices' versions arrived and the work tree shows them (the documents updated).
        case received
        /// A document entered the in-conflict state, or gained a version in contention: one
        /// event for each; ``SyncAgentEvent/detail`` says its versions (device and date) and,
        /// when its `auto` rule in `.concord/policies` left it for a person, why.
        case newConflict
        /// A sync resolved a conflict on its own, as the document's `auto` rule in
        /// `.concord/policies` asks: one event for each; ``SyncAgentEvent/detail`` says how.
        case autoResolved
        /// Documents left the in-conflict state (resolved here or on another device).
        case resolved
        /// The cloud cannot be used (airplane mode, or unreachable): saving goes on; ``SyncAgentEvent/detail`` says why.
        case offline
        /// The cloud could be used again after being offline.
        case backOnline
        /// An operation failed for another reason; the agent goes on and retries. ``SyncAgentEvent/detail`` says why.
        case failed
    }

    /// What happened.
    public var kind: Kind
    /// The documents it concerns, sorted (empty when it concerns none in particular).
    public var documents: [DocumentPath]
    /// When it happened.
    public var time: Date
    /// For ``Kind/offline`` and ``Kind/failed``: the cause; for ``Kind/newConflict``: the versions
    /// in contention; for ``Kind/autoResolved``: what was kept or merged. One line.
    public var detail: String?

    /// Makes an event.
    public init(kind: Kind, documents: [DocumentPath] = [], time: Date, detail: String? = nil) {
        self.kind = kind
        self.documents = documents
        self.time = time
        self.detail = detail
    }
}
