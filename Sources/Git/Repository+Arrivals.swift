public import GitFormat
public import GitStore

extension Repository {
    /// Visits every tree entry introduced by the commits reachable from `tips` and not from
    /// `known`, before anything names them (``ObjectStore/forEachArrivingEntry(from:hiding:_:)``):
    /// for each commit, the entries of its tree that differ from its first parent's, going down
    /// only into folders that changed. Cost follows what the commits changed, not the size of
    /// their trees.
    /// - Throws: ``GitError`` when an object is missing or malformed, or what `body` throws.
    public func forEachArrivingEntry(from tips: [OID], hiding known: [OID], _ body: (ArrivingEntry) throws -> Void) throws {
        try readingStore { try store.forEachArrivingEntry(from: tips, hiding: known, body) }
    }
}
