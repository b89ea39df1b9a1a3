/// What `save --all` did.
public struct SaveAllResult: Sendable, Hashable {
    /// A work-tree entry that was not saved, and why.
    public struct Skipped: Sendable, Hashable {
        /// The entry's path in the work tree.
        public var path: String
        /// Why it was not saved.
        public var reason: String
    }

    /// The commit holding every saved document's new version; nil when nothing changed.
    public var version: String?
    /// Documents that were not in `main`.
    public var added: [DocumentPath]
    /// Documents whose content changed.
    public var changed: [DocumentPath]
    /// Documents no longer in the work tree: their deletion is saved.
    public var removed: [DocumentPath]
    /// Entries that cannot be documents (symbolic links, invalid names), left alone.
    public var skipped: [Skipped]
    /// The documents found renamed, each new name with its old one: the old name's content gone
    /// and the same content new under one other name (counted in `removed` and `added` too).
    public var renamed: [DocumentPath: DocumentPath] = [:]
}
