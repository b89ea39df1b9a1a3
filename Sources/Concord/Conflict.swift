/// A document in conflict, as listed by ``Container/conflicts()``.
public struct Conflict: Sendable, Hashable {
    /// The document.
    public var document: DocumentPath
    /// How many versions are in contention, the current one included (2 when two devices diverged).
    public var versionCount: Int
    /// The ids of the unresolved versions other than the current one.
    public var conflictVersionIDs: [String]
}
