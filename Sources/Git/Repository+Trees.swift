public import GitFormat
public import GitStore

/// The repository's folders, read and written by its object store (``ObjectStore``): these
/// forward to it, reporting its errors as ``GitError``.
extension Repository {
    /// The entry at a slash-separated `path` inside the tree `tree`; nil when there is none.
    /// - Throws: ``GitError`` when the tree cannot be read.
    public func entry(at path: String, in tree: OID) throws -> TreeEntry? {
        try readingStore { try store.entry(at: path, in: tree) }
    }

    /// True when the entry at `path` is the same in both trees (the same id and mode, or absent
    /// from both; nil is the empty tree), reading down only to the first folder both share.
    /// - Throws: ``GitError`` when a tree cannot be read.
    public func sameEntry(at path: String, in first: OID?, _ second: OID?) throws -> Bool {
        try readingStore { try store.sameEntry(at: path, in: first, second) }
    }

    /// The entry `name` of the folder `tree`.
    func child(_ name: Substring, of tree: OID) throws -> TreeEntry? {
        try readingStore { try store.child(name, of: tree) }
    }

    /// The entries of the tree `tree`, in git's order.
    /// - Throws: ``GitError`` when the tree cannot be read or is malformed.
    public func entries(ofTree tree: OID) throws -> [TreeEntry] {
        try readingStore { try store.entries(ofTree: tree) }
    }

    /// Writes a tree holding exactly `entries` (names must be single path components).
    /// - Throws: ``GitError`` for an invalid name or mode, or when the tree cannot be written.
    public func writeTree(_ entries: [TreeEntry]) throws -> OID {
        try readingStore { try store.writeTree(entries) }
    }

    /// Writes a new tree: `base` (or the empty tree) with `updates` applied in the order of
    /// their paths (a later update of the same path wins), creating and pruning intermediate
    /// folders; only the folders on the updated paths are rewritten (``ObjectStore/updateTree(_:_:)``).
    /// - Throws: ``GitError`` when a path is invalid, an upsert names an object that is missing
    ///   or of another kind than its mode says, a path goes through a file, or an object cannot
    ///   be read or written.
    public func updateTree(_ base: OID?, _ updates: [TreeUpdate]) throws -> OID {
        try readingStore { try store.updateTree(base, updates) }
    }

    /// The files that differ between two trees (nil is the empty tree), sorted by path; folders
    /// whose ids are equal are skipped without being read.
    /// - Throws: ``GitError`` when a tree cannot be read.
    public func diff(_ old: OID?, _ new: OID?) throws -> [TreeChange] {
        try readingStore { try store.diff(old, new) }
    }

    /// The files that differ between two trees, as ``diff(_:_:)``, or nil as soon as more than
    /// `limit` differ.
    public func diff(_ old: OID?, _ new: OID?, limit: Int) throws -> [TreeChange]? {
        try readingStore { try store.diff(old, new, limit: limit) }
    }

    /// Calls `body` with each pair of entries of two folders that differ (``ObjectStore/forEachDifference(_:_:_:)``).
    func forEachDifference(_ old: OID?, _ new: OID?, _ body: (TreeEntry?, TreeEntry?) throws -> Void) throws {
        try readingStore { try store.forEachDifference(old, new, body) }
    }
}
