/// A document deleted recently (``Container/recentlyDeleted(limit:)``): the version that deleted
/// it, and the version whose content it had before, which a restore saves again.
public struct DeletedDocument: Sendable, Hashable {
    /// The document, absent from `main` now.
    public var document: DocumentPath
    /// The version that deleted it (who and when).
    public var deletion: DocumentVersion
    /// The version it held before: ``Container/content(of:version:)`` of it is what to restore.
    public var lastVersion: String
}
