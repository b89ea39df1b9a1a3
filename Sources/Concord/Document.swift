public import ConcordMerge
internal import Foundation
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
        let snapshot = try container.withCore { try $0.snapshot(of: path) }
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
        return try await container.offload { try $0.history.content(of: path, version: nil) }
    }

    /// Saves `content` as a new version. On failure the state becomes `savingError` until a save succeeds.
    /// - Throws: ``ConcordError/ignored(_:rule:)`` for a path the ignore rules leave out
    ///   (``Container/save(_:content:force:)`` saves it with `force`), and what a save throws.
    @discardableResult
    public func save(_ content: DocumentContent) async throws -> SaveResult {
        let path = path
        do {
            let result = try await container.offloadWrite { try $0.save(path, content: content) }
            storage.withLock { $0.savingFailed = false }
            container.observer.check()
            refresh()
            return result
        } catch {
            storage.withLock { $0.savingFailed = true }
            refresh()
            throw error
        }
    }

    /// The versions in contention: the current one first, then each unresolved conflict version.
    public func versions() async throws -> [DocumentVersion] {
        let path = path
        return try await container.offload { try $0.history.contestedVersions(of: path) }
    }

    /// Resolves the document's conflict (see ``Container/resolve(_:using:dryRun:)-(DocumentPath,_,_)``).
    @discardableResult
    public func resolve(using resolution: Resolution) async throws -> ResolveReport {
        let path = path
        let report = try await container.offloadWrite { try $0.resolve([path], using: resolution, dryRun: false)[0] }
        container.observer.check()
        refresh()
        return report
    }

    /// Renames the document to `newName`, keeping its history (``Container/move(_:to:)``), and
    /// closes this handle.
    /// - Returns: a handle on the document under its new name.
    /// - Throws: what ``Container/move(_:to:)`` throws; this handle stays open then.
    public func move(to newName: DocumentPath) async throws -> Document {
        let path = path
        _ = try await container.offload { try $0.move(path, to: newName) }
        container.observer.check()
        close()
        return try container.openDocument(newName)
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
            continuation.yield(DocumentChange(state: .closed, contentChanged: false, contentID: nil))
            continuation.finish()
        }
        if let subscription { container.observer.unsubscribe(subscription) }
    }

    /// Recomputes the state and content id; tells the streams when either changed.
    func refresh() {
        let path = path
        guard let current = try? container.withCore({ try $0.snapshot(of: path) }) else { return }
        let snapshot = (current, container.observer.lock.isWriteWaiting())
        let (change, continuations) = storage.withLock { state -> (DocumentChange?, [AsyncStream<DocumentChange>.Continuation]) in
            guard !state.closed else { return (nil, []) }
            let newState: DocumentState =
                state.savingFailed
                ? .savingError
                : snapshot.0.inConflict ? .inConflict : snapshot.1 ? .editingDisabled : .normal
            let contentChanged = snapshot.0.contentID != state.contentID
            guard newState != state.current || contentChanged else { return (nil, []) }
            state.current = newState
            state.contentID = snapshot.0.contentID
            return (
                DocumentChange(state: newState, contentChanged: contentChanged, contentID: snapshot.0.contentID),
                Array(state.continuations.values)
            )
        }
        guard let change else { return }
        for continuation in continuations { continuation.yield(change) }
    }
}

/// A change of an open document: its new state, and whether its current content changed.
public struct DocumentChange: Sendable, Hashable {
    /// The state after the change.
    public var state: DocumentState
    /// True when the current content changed (a new version arrived, or a resolution).
    public var contentChanged: Bool
    /// The id of the current content after the change; nil when deleted.
    public var contentID: String?
}
