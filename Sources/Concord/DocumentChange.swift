/// A change of an open document: its new state, whether its current content changed, and what
/// caused it.
public struct DocumentChange: Sendable, Hashable {
    /// What made a document change.
    public enum Cause: String, Sendable, Hashable, Codable {
        /// A version saved on this device (a save, a removal, a key-value write, save --all).
        case saved
        /// A sync: versions made on other devices arrived, or a conflict with them was recorded.
        case synced
        /// A conflict resolution.
        case resolved
        /// A rename (``Container/move(_:to:)``).
        case moved
        /// A writer took or released the container while another write waits
        /// (``DocumentState/editingDisabled``), or the device's settings changed.
        case writeWaiting
        /// A sync of this container started or ended moving objects
        /// (``DocumentState/progressAvailable``).
        case syncProgress
        /// A save through this handle failed, or the next one succeeded (``DocumentState/savingError``
        /// set or cleared).
        case savingFailed
        /// The handle was closed.
        case closed
    }

    /// The state after the change.
    public var state: DocumentState
    /// True when the current content changed (a new version arrived, or a resolution).
    public var contentChanged: Bool
    /// The id of the current content after the change; nil when deleted.
    public var contentID: String?
    /// What caused the change. For a change another process made, read from the commit it left
    /// `main` at: when it made several before this handle looked, the last one's.
    public var cause: Cause
    /// True when another process made the change (the sync agent, a `concord` command, another
    /// app on this device), false when this process did through its ``Container``.
    public var byAnotherProcess: Bool

    /// Creates a change.
    public init(state: DocumentState, contentChanged: Bool, contentID: String?, cause: Cause, byAnotherProcess: Bool = false) {
        self.state = state
        self.contentChanged = contentChanged
        self.contentID = contentID
        self.cause = cause
        self.byAnotherProcess = byAnotherProcess
    }
}
