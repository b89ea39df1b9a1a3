public import ConcordMerge
internal import FoundationEssentials
internal import GitFormat
internal import Synchronization

/// A handle on one document (the UIDocument role): its state, a stream of its changes, and
/// reading, saving, listing versions and resolving, all async and off the caller's executor.
///
/// Open documents are told when a save, sync or resolve — in this process, or in another one
/// (seen through inotify on the repository's references) — brings a new version, a conflict, or
/// a resolution, and when another process starts or stops writing the container.
public final class Document: Sendable {
    /// The document's path.
    public let path: DocumentPath
    /// The container it lives in.
    public let container: Container

    private struct State {
        var current: DocumentState
        var contentID: String?
        var savingFailed = false
        var closed = false
        var continuations: [UUID: AsyncStream<DocumentChange>.Continuation] = [:]
        var subscription: UUID?
    }

    private let storage: Mutex<State>

    init(container: Container, path: DocumentPath) throws {
        self.container = container
        self.path = path
        let snapshot = try container.read { try $0.snapshot(of: path) }
        storage = Mutex(State(current: snapshot.inConflict ? .inConflict : .normal, contentID: snapshot.contentID))
        let id = container.observer.subscribe { [weak self] _ in self?.refresh() }
        storage.withLock { $0.subscription = id }
    }

    deinit {
        if let id = storage.withLock({ $0.subscription }) { container.observer.unsubscribe(id) }
    }

    /// The document's state now.
    public var state: DocumentState { storage.withLock { $0.current } }

    /// The document's changes from now on: each new state, and whether the current content
    /// changed. Ends when the document is closed.
    public func changes() -> AsyncStream<DocumentChange> {
        let (stream, continuation) = AsyncStream<DocumentChange>.makeStream(bufferingPolicy: .unbounded)
        let id = UUID()
        let closed = storage.withLock { state -> Bool in
            if state.closed { return true }
            state.continuations[id] = continuation
            return false
        }
        if closed { continuation.finish() }
        continuation.onTermination = { [weak self] _ in
            _ = self?.storage.withLock { $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    /// The current content; nil when the current version is a deletion.
    public func read() async throws -> DocumentContent? {
        let path = path
        return try await container.offloadRead { try $0.history.content(of: path, version: nil) }
    }

    /// Saves `content` as a new version. On failure the state becomes `savingError` until a save succeeds.
    /// - Throws: ``ConcordError/ignored(_:rule:)`` for a path the ignore rules leave out
    ///   (``Container/save(_:content:force:)`` saves it with `force`), and what a save throws.
    @discardableResult
    public func save(_ content: DocumentContent) async throws -> SaveResult {
        let path = path
        do {
            storage.withLock { $0.savingFailed = false }
            return try await container.offloadWrite(.saved) { try $0.save(path, content: content) }
        } catch {
            storage.withLock { $0.savingFailed = true }
            refresh(savingFailed: true)
            throw error
        }
    }

    /// The versions in contention: the current one first, then each unresolved conflict version.
    public func versions() async throws -> [DocumentVersion] {
        let path = path
        return try await container.offloadRead { try $0.history.contestedVersions(of: path) }
    }

    /// Resolves the document's conflict (see ``Container/resolve(_:using:dryRun:)-(DocumentPath,_,_)``).
    @discardableResult
    public func resolve(using resolution: Resolution) async throws -> ResolveReport {
        let path = path
        return try await container.offloadWrite(.resolved) { try $0.resolve([path], using: resolution, dryRun: false)[0] }
    }

    /// Renames the document to `newName`, keeping its history (``Container/move(_:to:)``), and
    /// closes this handle.
    /// - Returns: a handle on the document under its new name.
    /// - Throws: what ``Container/move(_:to:)`` throws; this handle stays open then.
    public func move(to newName: DocumentPath) async throws -> Document {
        let path = path
        _ = try await container.offloadWrite(.moved) { try $0.move(path, to: newName) }
        close()
        return try await container.openDocument(newName)
    }

    /// Closes the handle: the state becomes `closed` and the change streams end.
    public func close() {
        let (continuations, subscription) = storage.withLock { state -> ([AsyncStream<DocumentChange>.Continuation], UUID?) in
            guard !state.closed else { return ([], nil) }
            state.closed = true
            state.current = .closed
            let all = Array(state.continuations.values)
            state.continuations = [:]
            return (all, state.subscription)
        }
        for continuation in continuations {
            continuation.yield(DocumentChange(state: .closed, contentChanged: false, contentID: nil, cause: .closed))
            continuation.finish()
        }
        if let subscription { container.observer.unsubscribe(subscription) }
    }

    /// Recomputes the state and content id after `main` moved or something else changed (a
    /// writer came or went, a sync started or ended); tells the streams when either changed.
    /// `savingFailed`: a save through this handle just failed.
    func refresh(savingFailed: Bool = false) {
        let path = path
        guard let (current, head) = try? container.read({ core in (try core.snapshot(of: path), try core.history.head()?.hex) }) else {
            return
        }
        let writeWaiting = container.observer.lock.isWriteWaiting()
        let syncing = container.syncsUnderWay.withLock { $0 > 0 }
        // What moved `main` to where it is: asked of every refresh, since two checks of `main`
        // (a write's own, and inotify's) can reach this handle in either order.
        let moved: (DocumentChange.Cause, Bool) = head.map(container.cause(ofMain:)) ?? (.saved, false)
        let (change, continuations) = storage.withLock { state -> (DocumentChange?, [AsyncStream<DocumentChange>.Continuation]) in
            guard !state.closed else { return (nil, []) }
            var newState = DocumentState(inConflict: current.inConflict, writeWaiting: writeWaiting)
            if state.savingFailed { newState.insert(.savingError) }
            if syncing { newState.insert(.progressAvailable) }
            let contentChanged = current.contentID != state.contentID
            guard newState != state.current || contentChanged else { return (nil, []) }
            let flags = newState.symmetricDifference(state.current)
            let (cause, byAnotherProcess): (DocumentChange.Cause, Bool) =
                savingFailed
                ? (.savingFailed, false)
                : contentChanged || flags.contains(.inConflict)
                    ? moved
                    : (flags.contains(.savingError) ? .savingFailed : flags.contains(.progressAvailable) ? .syncProgress : .writeWaiting, false)
            state.current = newState
            state.contentID = current.contentID
            return (
                DocumentChange(
                    state: newState, contentChanged: contentChanged, contentID: current.contentID, cause: cause,
                    byAnotherProcess: byAnotherProcess),
                Array(state.continuations.values)
            )
        }
        guard let change else { return }
        for continuation in continuations { continuation.yield(change) }
    }
}
