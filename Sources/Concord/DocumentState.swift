/// The state of a document (the UIDocument.State role).
public enum DocumentState: String, Sendable, Hashable, Codable {
    /// Saved, no conflict.
    case normal
    /// Versions made concurrently on other devices wait to be resolved.
    case inConflict
    /// Another process holds the container for writing.
    case editingDisabled
    /// The last save failed.
    case savingError
    /// The document handle was closed.
    case closed
}
