internal import FoundationEssentials
internal import Git
internal import GitFormat

/// What Concord has read from history, kept by commit id: commits with their parsed trailers,
/// and the current version of a document at a commit. A commit never changes, so nothing here
/// goes stale; the cache forgets everything at once when it grows past its bound.
final class HistoryCache {
    /// A commit and its trailers, read once.
    struct Entry {
        /// The commit, its message left out: the trailers are what Concord reads of it, and a
        /// cache of 100,000 commits must not keep every message whole.
        var commit: Commit
        var trailers: Trailers
    }

    private struct VersionKey: Hashable {
        var document: DocumentPath
        var commit: OID
    }

    /// What a one-parent commit changed: each path whose file changed and each folder holding
    /// one, and among them the files that were files on both sides (an edit: a version of that
    /// name, with no folder to read to know it).
    struct ChangedPaths {
        var paths: Set<TreePath>
        var edited: Set<TreePath>
    }

    /// A commit's place in the graph: its committer date and its parents.
    struct Node {
        var time: Double
        var parents: [OID]
    }

    private var commits: [OID: Entry] = [:]
    private var nodes: [OID: Node] = [:]
    private var changedPaths: [OID: ChangedPaths?] = [:]
    private var versions: [VersionKey: OID?] = [:]
    private let limit: Int

    init(limit: Int = 100_000) { self.limit = limit }

    /// The cached entry for `id`, reading it with `read` the first time.
    func entry(_ id: OID, read: (OID) throws -> Commit) rethrows -> Entry {
        if let known = commits[id] { return known }
        var commit = try read(id)
        let trailers = Trailers(message: commit.message)
        commit.message = ""
        let entry = Entry(commit: commit, trailers: trailers)
        if commits.count >= limit { commits.removeAll(keepingCapacity: true) }
        commits[id] = entry
        return entry
    }

    /// The graph node of `id`, made from its entry (`entry`) the first time.
    func node(_ id: OID, entry: (OID) throws -> Entry) rethrows -> Node {
        if let known = nodes[id] { return known }
        let commit = try entry(id).commit
        let node = Node(time: commit.committer.time.timeIntervalSince1970, parents: commit.parents)
        if nodes.count >= limit { nodes.removeAll(keepingCapacity: true) }
        nodes[id] = node
        return node
    }

    /// The paths a one-parent commit changed and the folders holding them, computed with
    /// `compute` the first time; nil when it changed too many to keep.
    func changedPaths(of commit: OID, compute: () throws -> ChangedPaths?) rethrows -> ChangedPaths? {
        if let known = changedPaths[commit] { return known }
        let paths = try compute()
        if changedPaths.count >= limit { changedPaths.removeAll(keepingCapacity: true) }
        changedPaths[commit] = .some(paths)
        return paths
    }

    /// The current version of `document` at `commit` when known: `.some(nil)` means it never existed there.
    func currentVersion(of document: DocumentPath, at commit: OID) -> OID?? {
        versions[VersionKey(document: document, commit: commit)]
    }

    /// Forgets every current version found: they were found under package patterns that changed.
    func forgetCurrentVersions() { versions.removeAll() }

    /// Records that `document`'s current version is `version` at each of `commits`.
    func remember(_ version: OID?, of document: DocumentPath, at commits: [OID]) {
        if versions.count + commits.count > limit { versions.removeAll(keepingCapacity: true) }
        for commit in commits { versions[VersionKey(document: document, commit: commit)] = version }
    }
}
