internal import Foundation
internal import Git
internal import GitFormat

/// The sync agent's look at its cloud's `main` between syncs (``CloudLink/peek()``): over the
/// network, a connection that reads the references the server advertises and closes.
///
/// It works on a repository handle of its own, opened on first use, so that a peek neither
/// waits for the container's core nor holds it, and never takes the container's write lock: a
/// save or a sync of the agent or the app goes on while a peek waits on a slow server. One peek
/// at a time; a new link each time, so that a changed cloud address, credentials or time-out
/// setting is used at the next peek.
final class CloudPeek: Sendable {
    private let root: String
    private let lockTimeout: Double
    private let repository = Locked<Repository?>(nil)

    /// Peeks at the cloud of the container whose work tree is `root`.
    init(root: String, lockTimeout: Double) {
        self.root = root
        self.lockTimeout = lockTimeout
    }

    /// The commit the cloud's `main` names now, as a hexadecimal id; nil when it has none.
    /// - Throws: the errors of ``CloudLink/fetch(progress:)``: ``ConcordError/offline(reason:waiting:)``
    ///   when the cloud cannot be reached, ``ConcordError/cloudRefused(_:)`` when either side
    ///   refused the other.
    func cloudMain() throws -> String? {
        try repository.withLock { repository in
            if repository == nil {
                repository = try ConcordError.wrap("cannot open the container") { try Repository.open(at: root) }
            }
            guard let opened = repository else { throw ConcordError.failed("cannot open the container") }
            return try CloudLink(repository: opened, lockTimeout: lockTimeout).peek()?.hex
        }
    }
}
