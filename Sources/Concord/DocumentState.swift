/// The state of a document (the UIDocument.State role).
public enum DocumentState: String, Sendable, Hashable, Codable {
    /// Saved, no conflict.
    case normal
    /// Versions made concurrently on other devices wait to be resolved.
    case inConflict
    /// A write is waiting: a writer holds the container's lock and another write waits for it —
    /// a command (save, rm, resolve, sync) of any process, an open ``Document``'s save, or a sync
    /// agent holding edits it could not save yet. An edit made now would only queue behind
    /// them. A writer at work alone (a sync under way) does not disable editing: what is edited
    /// meanwhile is saved once it ends. Container-wide: every document shows it.
    case editingDisabled
    /// The last save failed.
    case savingError
    /// The document handle was closed.
    case closed
}
