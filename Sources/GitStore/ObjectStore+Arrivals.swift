public import GitFormat

/// One tree entry that an arriving commit introduces.
public struct ArrivingEntry: Sendable, Equatable {
    /// The commit that introduces it (the first one met, newest first).
    public var commit: OID
    /// The folder path holding the entry, empty at the root, without a trailing slash.
    public var folder: String
    /// The entry, as stored.
    public var entry: TreeEntry

    /// The entry's slash-separated path from the root.
    public var path: String { folder.isEmpty ? entry.name : "\(folder)/\(entry.name)" }
}

extension ObjectStore {
    /// Visits every tree entry introduced by the commits reachable from `tips` and not from
    /// `known`, before anything names them: for each commit, the entries of its tree that differ
    /// from its first parent's (every entry of a root commit), going down only into folders that
    /// changed, each folder at a given path once. A tree that lists a name twice or out of git's
    /// order is refused. Cost follows what the commits changed, not the size of their trees.
    /// - Throws: ``StoreError`` when an object is missing or malformed
    ///   (``StoreError/Kind/refusedFolder`` for a folder, told with where it was found), or what
    ///   `body` throws.
    package func forEachArrivingEntry(from tips: [OID], hiding known: [OID], _ body: (ArrivingEntry) throws -> Void) throws {
        var visited = Set<FolderKey>()
        for commit in try commits(from: tips, hiding: known) {
            let tree = try treeID(ofCommit: commit)
            let parentTree = try parents(ofCommit: commit).first.map(treeID(ofCommit:))
            try visitArriving(tree, against: parentTree, folder: "", commit: commit, visited: &visited, body)
        }
    }

    private struct FolderKey: Hashable {
        var id: OID
        var path: String

        // By bytes: two paths that differ by Unicode normalization alone are two folders.
        static func == (a: FolderKey, b: FolderKey) -> Bool { a.id == b.id && ObjectStore.sameName(a.path[...], b.path[...]) }

        func hash(into hasher: inout Hasher) {
            hasher.combine(id)
            ObjectStore.hashName(path[...], into: &hasher)
        }
    }

    private func visitArriving(
        _ tree: OID, against old: OID?, folder: String, commit: OID, visited: inout Set<FolderKey>,
        _ body: (ArrivingEntry) throws -> Void
    ) throws {
        guard tree != old, visited.insert(FolderKey(id: tree, path: folder)).inserted else { return }
        do {
            try forEachDifference(old, tree) { previous, entry in
                guard let entry else { return }
                let arriving = ArrivingEntry(commit: commit, folder: folder, entry: entry)
                try body(arriving)
                if entry.kind == .tree {
                    try visitArriving(
                        entry.id, against: previous?.kind == .tree ? previous?.id : nil,
                        folder: arriving.path, commit: commit, visited: &visited, body)
                }
            }
        } catch let error as StoreError where error.kind == .malformedFolder {
            throw error.found(inFolder: folder, tree: tree, commit: commit)
        }
    }
}
