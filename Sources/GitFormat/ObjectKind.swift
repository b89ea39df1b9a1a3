/// What kind of object a tree entry names.
public enum ObjectKind: Sendable, Equatable {
    /// File content.
    case blob
    /// A folder.
    case tree
    /// A submodule link (never written by Concord; refused when read).
    case commit
}
