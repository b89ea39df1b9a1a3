internal import FoundationEssentials
internal import Git
internal import GitFormat

/// The sync agent's look at its cloud's `main` between syncs (``CloudLink/peek()``): over the
/// network, a session that reads the references the server advertises and ends.
///
/// It works on a repository handle of its own, opened on first use, so that a peek neither
/// waits for the container's core nor holds it, and never takes the container's write lock: a
/// save or a sync of the agent or the app goes on while a peek waits on a slow server. One peek
/// at a time; a new link each time, so that a changed cloud address, credentials or time-out
/// setting is used at the next peek. An https or http cloud is reached over one connection kept
/// from peek to peek (``KeptConnection``: made again when the server closed it, or when the
/// address changed), closed by ``close()`` when the agent stops.
final class CloudPeek: Sendable {
    /// What the peeks keep from one to the next.
    private struct Handles {
        var repository: Repository?
        var connection = KeptConnection()
    }

    private let root: String
    private let lockTimeout: Double
    private let environment: CloudEnvironment
    private let handles = Locked(Handles())

    /// Peeks at the cloud of the container whose work tree is `root`, with what `environment`
    /// says of reaching it.
    init(root: String, lockTimeout: Double, environment: CloudEnvironment = .current) {
        self.root = root
        self.lockTimeout = lockTimeout
        self.environment = environment
    }

    /// The commit the cloud's `main` names now, as a hexadecimal id; nil when it has none.
    /// - Throws: the errors of ``CloudLink/fetch(progress:)``: ``ConcordError/offline(reason:waiting:)``
    ///   when the cloud cannot be reached, ``ConcordError/cloudRefused(_:)`` when either side
    ///   refused the other.
    func cloudMain() throws -> String? {
        try handles.withLock { handles in
            if handles.repository == nil {
                handles.repository = try ConcordError.wrap("cannot open the container") { try Repository.open(at: root) }
            }
            guard let opened = handles.repository else { throw ConcordError.failed("cannot open the container") }
            let link = try CloudLink(repository: opened, lockTimeout: lockTimeout, environment: environment, connection: handles.connection)
            return try link.peek()?.hex
        }
    }

    /// Closes the kept connection. A peek under way keeps it until it ends; the connection then
    /// closes when the last reference to this peek goes.
    func close() {
        _ = try? handles.withLockIfAvailable { $0.connection.close() }
    }
}
