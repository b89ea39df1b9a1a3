/// What a save did.
public struct SaveResult: Sendable, Hashable {
    /// The document.
    public var document: DocumentPath
    /// The new version's id; nil when the content was already the current one.
    public var version: String?
    /// True when the save recorded a deletion.
    public var isDeletion: Bool
}
