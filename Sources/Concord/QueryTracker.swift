/// What a live query has told of each document it selects, and the event a new listing entry
/// makes of it: a document entering the selection is added, one leaving it (deleted, or no longer
/// matching, like a conflict resolved under ``DocumentPredicate/inConflict``) removed.
struct QueryTracker {
    let predicate: DocumentPredicate
    private(set) var selected: [DocumentPath: DocumentInfo] = [:]

    /// Starts from the gathered entries that the predicate selects.
    init(predicate: DocumentPredicate, gathered: [DocumentInfo]) {
        self.predicate = predicate
        for info in gathered where predicate.matches(info) { selected[info.path] = info }
    }

    /// Records `path`'s new entry (nil: deleted); the event it makes, if any.
    mutating func update(_ path: DocumentPath, to entry: DocumentInfo?) -> QueryEvent? {
        let info = entry.flatMap { predicate.matches($0) ? $0 : nil }
        let old = selected[path]
        selected[path] = info
        switch (old, info) {
        case (nil, let info?): return .added(info)
        case (_?, nil): return .removed(path)
        case let (old?, info?) where old.state != info.state: return .stateChanged(info)
        case let (old?, info?) where old.contentID != info.contentID: return .changed(info)
        default: return nil
        }
    }

    /// The selected documents, by path.
    var results: [DocumentInfo] { selected.values.sorted { $0.path < $1.path } }
}

extension Container {
    /// The listing entries of every document, or of those `pattern` matches, without the
    /// moment's `editingDisabled` (a query tells of lasting states).
    func queryEntries(matching pattern: String?) -> [DocumentInfo] {
        ((try? read { try $0.documents(matching: pattern) }) ?? []).map(Self.lasting)
    }

    /// The listing entry of each document changed by a move of `main`, as a query sees it.
    func queryChanges(_ move: MainObserver.Move) -> [(DocumentPath, DocumentInfo?)] {
        guard move.moved, let changed = try? read({ try $0.changedDocuments(from: move.old, to: move.new) }) else { return [] }
        return changed.sorted().map { path in (path, ((try? read { try $0.info(of: path, lockState: false) }) ?? nil).map(Self.lasting)) }
    }

    private static func lasting(_ info: DocumentInfo) -> DocumentInfo {
        var info = info
        info.state.remove(.editingDisabled)
        return info
    }
}
