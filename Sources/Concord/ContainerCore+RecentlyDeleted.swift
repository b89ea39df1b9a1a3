internal import Git
internal import GitFormat
internal import GitStore

extension ContainerCore {
    /// The documents absent from `main` whose deletion is among the last `commits` commits of
    /// `main`'s first-parent line, the latest deletion first. The cost follows those commits'
    /// changes, not the container's size. Concord's own records and settings are left out.
    func recentlyDeleted(commits: Int) throws -> [DeletedDocument] {
        guard var id = try history.head() else { return [] }
        let headTree = try history.tree(of: id)
        let patterns = try history.packagePatterns(in: headTree)
        var found: [DocumentPath: DeletedDocument] = [:]
        var order: [DocumentPath] = []
        var seen = Set<DocumentPath>()
        for _ in 0..<commits {
            let commit = try history.commit(id)
            guard let parent = commit.parents.first else { break }
            let changes = try ConcordError.wrap("cannot compare trees") { try repository.diff(history.tree(of: parent), commit.tree) }
            for change in changes where change.new == nil && !ContainerLayout.isConcords(change.path) {
                guard let (document, _) = history.document(containing: change.path, patterns: patterns), seen.insert(document).inserted else { continue }
                guard try history.documentEntry(document, in: headTree) == nil, try history.documentEntry(document, in: commit.tree) == nil,
                    let deletion = try history.currentVersion(of: document, at: id),
                    let before = try history.currentVersion(of: document, at: parent)
                else { continue }
                let described = try history.describe(deletion, of: document, current: deletion, conflicts: [])
                found[document] = DeletedDocument(document: document, deletion: described, lastVersion: before.hex)
                order.append(document)
            }
            id = parent
        }
        return order.compactMap { found[$0] }
    }
}

extension Container {
    /// The documents deleted recently and still absent (the "recently deleted" of a files app):
    /// those whose deletion is among the last `limit` commits of this device's `main`, the latest
    /// first. Restore one by saving ``Container/content(of:version:)`` of its
    /// ``DeletedDocument/lastVersion`` (a new version; the deletion stays in the history).
    @available(*, noasync, message: "blocks on disk: from async code, await the async form")
    public func recentlyDeleted(limit: Int = 200) throws -> [DeletedDocument] {
        try read { try $0.recentlyDeleted(commits: limit) }
    }

    /// The async form of the call above: the same work on a queue of its own (``Blocking``), so that the caller's
    /// executor (the main actor of an app) never waits on disk.
    public func recentlyDeleted(limit: Int = 200) async throws -> [DeletedDocument] {
        try await offloadRead { try $0.recentlyDeleted(commits: limit) }
    }
}
