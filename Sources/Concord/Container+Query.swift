internal import ConcordMerge
internal import FoundationEssentials

/// A change seen by a live document query.
public enum QueryEvent: Sendable, Hashable {
    /// The first results: every matching document, with its state.
    case gathered([DocumentInfo])
    /// A matching document appeared.
    case added(DocumentInfo)
    /// A matching document's current content changed.
    case changed(DocumentInfo)
    /// A matching document's state changed (for example it entered or left the in-conflict state).
    case stateChanged(DocumentInfo)
    /// A matching document was deleted.
    case removed(DocumentPath)
}

extension Container {
    /// A live query (the NSMetadataQuery role): the documents whose path or name matches `pattern`
    /// (every document when nil), first gathered, then each addition, change, state change and
    /// removal, whether a command in this process or another process made it. The stream ends
    /// when its consumer stops iterating. States here are lasting ones (`inConflict` or none):
    /// whether another process holds the container is a moment's fact, told by
    /// ``Document/state``. For a predicate over states, a results snapshot and batched updates,
    /// see ``query(_:batchingInterval:)``.
    public func query(matching pattern: String? = nil) -> AsyncStream<QueryEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: QueryEvent.self, bufferingPolicy: .unbounded)
        let predicate = pattern.map { DocumentPredicate.path(matching: $0) } ?? .all
        let tracker = Locked(QueryTracker(predicate: predicate, gathered: queryEntries(matching: pattern)))
        continuation.yield(.gathered(tracker.withLock { $0.results }))
        let id = observer.subscribe { [weak self] move in
            guard let self else { return }
            for (path, info) in queryChanges(move) {
                if let event = tracker.withLock({ $0.update(path, to: info) }) { continuation.yield(event) }
            }
        }
        continuation.onTermination = { [weak self] _ in self?.observer.unsubscribe(id) }
        return stream
    }

    /// A live query over a predicate (the NSMetadataQuery role, with its predicate, its results
    /// and its batched notifications): ``DocumentQuery/results`` is kept current, and
    /// ``DocumentQuery/updates()`` tells of the changes, a burst gathered into one update per
    /// `batchingInterval` (NSMetadataQuery's notificationBatchingInterval).
    public func query(_ predicate: DocumentPredicate, batchingInterval: Duration = .milliseconds(100)) -> DocumentQuery {
        DocumentQuery(container: self, predicate: predicate, batchingInterval: batchingInterval)
    }
}
