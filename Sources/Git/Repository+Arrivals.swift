internal import CGit2
public import GitFormat
internal import GitStore

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

extension Repository {
    /// Visits every tree entry introduced by the commits reachable from `tips` and not from
    /// `known`, before anything names them: for each commit, the entries of its tree that differ
    /// from its first parent's (every entry of a root commit), going down only into folders that
    /// changed, each folder at a given path once. A tree that lists a name twice or out of git's
    /// order is refused. Cost follows what the commits changed, not the size of their trees.
    /// - Throws: ``GitError`` when an object is missing or malformed, or what `body` throws.
    public func forEachArrivingEntry(from tips: [OID], hiding known: [OID], _ body: (ArrivingEntry) throws -> Void) throws {
        var commits: [OID] = []
        try walk(from: tips, hiding: known.filter(contains)) { id in
            commits.append(id)
            return true
        }
        var visited = Set<FolderKey>()
        for commit in commits {
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
        } catch let error as GitError where error.isFolderProblem {
            throw error.found(inFolder: folder, tree: tree, commit: commit)
        }
    }
}

extension GitError {
    /// True for a folder's bytes found malformed or out of order (``RawTree``).
    var isFolderProblem: Bool { function.hasPrefix("RawTree") }

    /// A folder's problem told with where it was found: the commit, the folder's path, its id.
    func found(inFolder path: String, tree: OID, commit: OID) -> GitError {
        let what = message.hasPrefix("a folder") ? String(message.dropFirst("a folder".count)) : ": \(message)"
        return GitError(
            code: code, errorClass: errorClass,
            message: "commit \(commit.short): the folder '\(path.isEmpty ? "/" : path)' (tree \(tree.short))\(what)", function: "folder check")
    }
}
