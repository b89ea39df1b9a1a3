internal import FoundationEssentials
internal import Glibc
internal import Git
internal import GitFormat
internal import GitStore
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
    /// This device's roll-ups since its last push to a local cloud.
    let rolledUp = RolledUp()

    /// Bytes a device's roll-ups merged since its last push (``maintain(_:)``).
    final class RolledUp {
        var sinceLastPush = 0
    }

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
    /// they pile up; a failure is only a warning, as nothing depends on it. A local cloud's
    /// roll-up, run after a push, waits for a later push when this device's own since its last
    /// push merged ``Maintenance/cloudWaitBytes`` or more, so that one edit never pays for both;
    /// it waits ``Maintenance/cloudWaitPushes`` pushes in a row at most (counted in a mark in
    /// the cloud, ``ContainerLayout/cloudRollUpWaited``, that any device's push reads), or a
    /// device whose every push rolls up (a wide folder rewritten at each save) would leave the
    /// cloud's packs to pile up.
    func maintain(_ repository: Repository) {
        guard !repository.isWritingOnePack else { return }
        let isCloud = repository !== self.repository
        if isCloud {
            defer { rolledUp.sinceLastPush = 0 }
            let mark = repository.gitDirectory + ContainerLayout.cloudRollUpWaited
            let waited = (try? RegularFile.read(mark, largest: 16)).flatMap { Int(String(decoding: $0, as: UTF8.self)) } ?? 0
            if rolledUp.sinceLastPush >= Maintenance.cloudWaitBytes, waited < Maintenance.cloudWaitPushes,
                (try? WorkTree(root: String(repository.gitDirectory.dropLast())).write(ContainerLayout.cloudRollUpWaited, data: Data("\(waited + 1)".utf8))) != nil
            {
                return
            }
            if waited > 0 { unlink(mark) }
        }
        do {
            let merged = try Maintenance.keepSmall(repository)
            if !isCloud { rolledUp.sinceLastPush += merged }
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
