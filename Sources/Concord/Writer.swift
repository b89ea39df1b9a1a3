internal import Foundation
internal import Git
internal import GitFormat
internal import Logging

/// The container's writer: runs each write holding the container lock (one writing process at a
/// time), after clearing what a killed writer left behind, and tidies up before letting go.
///
/// Before the write: git's stale lock files and the temporary files of objects being written
/// (``Repository/removeTemporaryFiles()``) go, and a pending work-tree update is finished
/// (``Checkout/recoverPending()``). After it: the history index catches up with `main` and the
/// object database is kept small (``Maintenance``), still under the lock.
struct Writer {
    /// The repository written to.
    let repository: Repository
    /// The work tree's root, named when another process holds the lock.
    let root: String
    /// How long to wait for another process to release the lock, in seconds.
    let lockTimeout: Double
    /// Whose index is brought up to date after each write.
    let history: History
    /// Finishes a work-tree update an interrupted command left pending.
    let checkout: Checkout
    /// Where maintenance failures are reported.
    let logger: Logger

    /// Runs `body` holding the container's write lock, after finishing any work-tree update
    /// that an interrupted command left pending; then keeps the object database small
    /// (``Maintenance``), still holding the lock.
    /// - Throws: ``ConcordError/busy(_:)`` when another process keeps the lock, and what `body` throws.
    func write<T>(_ body: () throws -> T) throws -> T {
        let lock = try ContainerLock(gitDirectory: repository.gitDirectory, root: root, timeout: lockTimeout)
        return try withExtendedLifetime(lock) {
            removeStaleGitLocks()
            repository.removeTemporaryFiles()
            try checkout.recoverPending()
            let result = try body()
            history.updateIndex()
            maintain(repository)
            return result
        }
    }

    /// Rolls up packs and loose objects of `repository` (this device's or its local cloud's) when
    /// they pile up; a failure is only a warning, as nothing depends on it.
    func maintain(_ repository: Repository) {
        guard !repository.isWritingOnePack else { return }
        do {
            try Maintenance.keepSmall(repository)
        } catch {
            logger.warning("could not repack \(repository.gitDirectory): \(error)")
        }
    }

    /// Removes lock files that a killed writer left in the repository. Only a Concord writer
    /// holding the container lock writes these files, and this one holds it now, so any found
    /// are stale (git itself would refuse every later update until someone removed them).
    private func removeStaleGitLocks() {
        repository.removeStaleLocks(ofReferences: [ContainerLayout.main, ContainerLayout.remoteMain])
    }
}
