/// One notification of a ``DocumentQuery``: the changes of a burst, and the results after them
/// (NSMetadataQueryDidFinishGathering, then NSMetadataQueryDidUpdate).
public struct QueryUpdate: Sendable, Hashable {
    /// True for the first update of a stream: the results gathered, no changes.
    public var isGathering: Bool
    /// The additions, changes, state changes and removals of the burst, in the order they were
    /// seen (a document leaving the predicate is removed, one entering it added).
    public var changes: [QueryEvent]
    /// The query's results after the update, by path.
    public var results: [DocumentInfo]

    /// Creates an update.
    public init(isGathering: Bool, changes: [QueryEvent], results: [DocumentInfo]) {
        self.isGathering = isGathering
        self.changes = changes
        self.results = results
    }
}
