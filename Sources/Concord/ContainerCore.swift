internal import FoundationEssentials
internal import Git
internal import GitFormat

/// The non-Sendable core of a container: the repository handle and the operations on it.
/// ``Container`` hands it out one caller at a time.
///
/// Its operations are facets (`ContainerCore+Topic.swift`); what they share are the types it
/// holds: the ``Writer`` every write goes through, the ``WorkTree`` of files people edit, the
/// ``Checkout`` of the work tree, the ``CommitMaker`` of this device's commits, the
/// ``Integration`` of two histories and the read-only ``History``.
final class ContainerCore {
    let repository: Repository
    let workTree: WorkTree
    let lockTimeout: Double
    let device: Device
    let history: History
    /// Moves the work tree with `main`, through the checkout journal.
    let checkout: Checkout
    /// Runs every write under the container lock.
    let writer: Writer
    /// Writes this device's commits.
    let commitMaker: CommitMaker
    /// Merges this device's history with the cloud's.
    let integration: Integration

    init(repository: Repository, options: Container.Options) throws {
        self.repository = repository
        guard let directory = repository.workDirectory else {
            throw ConcordError.notAContainer(repository.gitDirectory)
        }
        workTree = WorkTree(root: String(directory.dropLast(directory.hasSuffix("/") ? 1 : 0)))
        lockTimeout = options.lockTimeout
        history = History(repository: repository, logger: options.logger)
        checkout = Checkout(repository: repository, workTree: workTree, history: history, logger: options.logger)
        writer = Writer(
            repository: repository, root: workTree.root, lockTimeout: options.lockTimeout, history: history, checkout: checkout,
            logger: options.logger)
        guard let device = DeviceSettings(repository: repository).device else {
            throw ConcordError.notAContainer(workTree.root)
        }
        self.device = device
        commitMaker = CommitMaker(repository: repository, history: history, device: device, now: options.now)
        integration = Integration(repository: repository, history: history, commitMaker: commitMaker)
    }

    /// Runs `body` with the objects it writes stored as one pack, synced once, before any
    /// reference names them.
    func inOnePack<T>(_ body: () throws -> T) throws -> T {
        try ConcordError.wrap("cannot store the new objects") { try repository.writingOnePack(body) }
    }

    /// Runs `body` as a write (``Writer/write(_:)``) whose objects are stored as one pack,
    /// synced once (for writes of many objects: `save --all`, resolve).
    func writeInOnePack<T>(_ body: () throws -> T) throws -> T {
        try writer.write { try inOnePack(body) }
    }
}
