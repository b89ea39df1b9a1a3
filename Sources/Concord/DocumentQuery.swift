internal import Dispatch
internal import FoundationEssentials

/// A live query over a ``DocumentPredicate`` (the NSMetadataQuery role): its results, kept
/// current from every save, sync and resolution of this process or another, and a stream of
/// batched updates. It stops when ``stop()`` is called or when it is released. Made by
/// ``Container/query(_:batchingInterval:)``.
public final class DocumentQuery: Sendable {
    /// What the query selects.
    public let predicate: DocumentPredicate

    private struct State {
        var tracker: QueryTracker
        var pending: [QueryEvent] = []
        var flushScheduled = false
        var updatesDisabled = false
        var continuations: [UUID: AsyncStream<QueryUpdate>.Continuation] = [:]
        var subscription: UUID?
        var stopped = false
    }

    private let state: Locked<State>
    private let container: Container
    private let batchingInterval: Duration

    init(container: Container, predicate: DocumentPredicate, batchingInterval: Duration) {
        self.container = container
        self.predicate = predicate
        self.batchingInterval = batchingInterval
        let tracker = QueryTracker(predicate: predicate, gathered: container.queryEntries(matching: predicate.pattern))
        state = Locked(State(tracker: tracker))
        let id = container.observer.subscribe { [weak self] move in self?.record(move) }
        state.withLock { $0.subscription = id }
    }

    deinit { stop() }

    /// The documents the query selects now, by path.
    public var results: [DocumentInfo] { state.withLock { $0.tracker.results } }

    /// The updates from now on: first the results gathered (``QueryUpdate/isGathering``), then
    /// one update per burst of changes. Ends when the query stops.
    public func updates() -> AsyncStream<QueryUpdate> {
        let (stream, continuation) = AsyncStream.makeStream(of: QueryUpdate.self, bufferingPolicy: .unbounded)
        let id = UUID()
        let stopped = state.withLock { state -> Bool in
            guard !state.stopped else { return true }
            continuation.yield(QueryUpdate(isGathering: true, changes: [], results: state.tracker.results))
            state.continuations[id] = continuation
            return false
        }
        if stopped { continuation.finish() }
        continuation.onTermination = { [weak self] _ in _ = self?.state.withLock { $0.continuations.removeValue(forKey: id) } }
        return stream
    }

    /// Stops following changes and ends every update stream.
    public func stop() {
        let (continuations, subscription) = state.withLock { state -> ([AsyncStream<QueryUpdate>.Continuation], UUID?) in
            guard !state.stopped else { return ([], nil) }
            state.stopped = true
            defer { state.continuations = [:] }
            return (Array(state.continuations.values), state.subscription)
        }
        for continuation in continuations { continuation.finish() }
        if let subscription { container.observer.unsubscribe(subscription) }
    }

    /// Holds the updates back (NSMetadataQuery's disableUpdates): changes are still applied to
    /// ``results`` and gathered, and told as one update by ``enableUpdates()``.
    public func disableUpdates() {
        state.withLock { $0.updatesDisabled = true }
    }

    /// Tells what was gathered while updates were held back, as one update, and lets them go on.
    public func enableUpdates() {
        state.withLock { $0.updatesDisabled = false }
        flush()
    }

    /// Applies a move of `main` to the results at once, and schedules the update that tells it.
    private func record(_ move: MainObserver.Move) {
        let changes = container.queryChanges(move)
        guard !changes.isEmpty else { return }
        let schedule = state.withLock { state -> Bool in
            guard !state.stopped else { return false }
            for (path, info) in changes {
                if let event = state.tracker.update(path, to: info) { state.pending.append(event) }
            }
            guard !state.pending.isEmpty, !state.flushScheduled, !state.updatesDisabled else { return false }
            state.flushScheduled = true
            return true
        }
        guard schedule else { return }
        let interval = batchingInterval.components
        let nanoseconds = Int(interval.seconds) * 1_000_000_000 + Int(interval.attoseconds / 1_000_000_000)
        Blocking.queue("concord.query").asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [weak self] in self?.flush() }
    }

    /// Tells every stream of the changes gathered since the last update.
    private func flush() {
        let (update, continuations) = state.withLock { state -> (QueryUpdate, [AsyncStream<QueryUpdate>.Continuation]) in
            state.flushScheduled = false
            guard !state.updatesDisabled else { return (QueryUpdate(isGathering: false, changes: [], results: []), []) }
            let update = QueryUpdate(isGathering: false, changes: state.pending, results: state.tracker.results)
            state.pending = []
            return (update, Array(state.continuations.values))
        }
        guard !update.changes.isEmpty else { return }
        for continuation in continuations { continuation.yield(update) }
    }
}
