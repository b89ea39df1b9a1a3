internal import ConcordMerge
internal import Foundation

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
    /// when its consumer stops iterating. States here are `normal` and `inConflict`: whether
    /// another process holds the container is a moment's fact, told by ``Document/state``.
    public func query(matching pattern: String? = nil) -> AsyncStream<QueryEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: QueryEvent.self, bufferingPolicy: .unbounded)
        let glob = pattern.map(GlobPattern.init)
        let initial = ((try? documents(matching: pattern)) ?? []).map { info in
            var info = info
            info.state.remove(.editingDisabled)
            return info
        }
        continuation.yield(.gathered(initial))
        let known = Locked(Dictionary(initial.map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a }))
        let id = observer.subscribe { [weak self] move in
            guard let self, move.moved else { return }
            guard let changed = try? self.withCore({ try $0.changedDocuments(from: move.old, to: move.new) }) else { return }
            for path in changed.sorted() where glob?.matches(path.value) ?? true {
                let info = (try? self.withCore { try $0.info(of: path, lockState: false) }) ?? nil
                let previous = known.withLock { known -> DocumentInfo? in
                    let old = known[path]
                    known[path] = info
                    return old
                }
                switch (previous, info) {
                case (nil, let info?): continuation.yield(.added(info))
                case (_?, nil): continuation.yield(.removed(path))
                case let (old?, info?) where old.state != info.state: continuation.yield(.stateChanged(info))
                case let (old?, info?) where old.contentID != info.contentID: continuation.yield(.changed(info))
                default: break
                }
            }
        }
        continuation.onTermination = { [weak self] _ in self?.observer.unsubscribe(id) }
        return stream
    }
}
