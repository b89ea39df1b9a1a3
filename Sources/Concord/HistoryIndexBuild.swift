internal import Dispatch
internal import Git
internal import GitFormat
internal import Logging

/// A history index built on a thread of its own, through a repository opened for it (its own
/// object store), while the caller goes on with other work on the same repository: a clone's
/// checkout, once what arrived passed the arrival check. A failure says nothing here: the
/// writer's update that follows finds no index at `main` and builds it, warning when it cannot.
struct HistoryIndexBuild: Sendable {
    private let group = DispatchGroup()

    /// Starts building the index of the repository at `path` (its work tree) at `head`.
    static func start(repositoryAt path: String, at head: OID) -> HistoryIndexBuild {
        let build = HistoryIndexBuild()
        build.group.enter()
        Blocking.start {
            defer { build.group.leave() }
            let silent = Logger(label: "concord.history-index-build") { _ in SwiftLogNoOpLogHandler() }
            let history = try? History(repository: Repository.open(at: path), logger: silent)
            try? history?.rebuildIndex(at: head)
        }
        return build
    }

    /// Waits until the build is over (at once when it is).
    func wait() { group.wait() }
}
