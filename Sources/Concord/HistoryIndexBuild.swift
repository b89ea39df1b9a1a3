internal import Dispatch
internal import Git
internal import GitFormat
internal import Logging

/// A history index built on a thread of its own, through a repository opened for it (its own
/// object store), while the caller goes on with other work on the same repository: a clone's
/// arrival check and checkout. A failure is only a warning, as a writer's update is: the index
/// is a cache, and the next writer builds it.
struct HistoryIndexBuild: Sendable {
    private let group = DispatchGroup()

    /// Starts building the index of the repository at `path` (its work tree) at `head`.
    static func start(repositoryAt path: String, at head: OID, logger: Logger) -> HistoryIndexBuild {
        let build = HistoryIndexBuild()
        build.group.enter()
        Blocking.start {
            defer { build.group.leave() }
            do {
                let history = History(repository: try Repository.open(at: path), logger: logger)
                try history.rebuildIndex(at: head)
            } catch {
                logger.warning("could not build the history index (the next save builds it): \(error)")
            }
        }
        return build
    }

    /// Waits until the build is over (at once when it is).
    func wait() { group.wait() }
}
