public import FoundationEssentials
internal import Dispatch
internal import Git
internal import GitFormat
internal import GitStore
@_exported public import Logging
internal import Synchronization

/// A container: one git repository of documents, held by this device as a clone with a
/// work tree (the ubiquity container role). Sendable: the repository handle inside is used by
/// one caller at a time.
///
/// Writers (save, remove, sync, resolve) also take the container's lock, so that several
/// processes never write at once; readers never wait for it.
public final class Container: Sendable {
    /// Options for opening, creating or cloning a container.
    public struct Options: Sendable {
        /// The wall clock (inject a skewed one to test clock skew).
        public var now: @Sendable () -> Date
        /// How long a writer waits for another process to release the container, in seconds.
        public var lockTimeout: Double
        /// Called with transfer counts while a sync or clone moves objects.
        public var progress: (@Sendable (SyncProgress) -> Void)?
        /// The device id a new clone or container gets (default: a new random UUID). Give a fixed
        /// one only to make simulations reproducible; two clones must never share an id.
        public var deviceID: String?
        /// How often open documents and queries look for changes made by other processes when
        /// inotify cannot tell them (they are told at once otherwise).
        public var watchInterval: Duration = .milliseconds(250)
        /// Where warnings go: a conflict record naming something that is not a version, and the like.
        public var logger = Logger(label: "concord")

        /// Creates options; by default the system clock and a 5-second wait.
        public init(
            now: @escaping @Sendable () -> Date = { Date() }, lockTimeout: Double = 5,
            progress: (@Sendable (SyncProgress) -> Void)? = nil, deviceID: String? = nil
        ) {
            self.now = now
            self.deviceID = deviceID
            self.lockTimeout = lockTimeout
            self.progress = progress
        }
    }

    /// The work tree's root folder.
    public let root: String
    /// This clone's device.
    public let device: Device
    let options: Options
    /// The repository's git directory, ending in `/`.
    let gitDirectory: String
    private let core: Locked<ContainerCore>
    /// The second core that reads use while a write holds ``core`` (see ``read(_:)``).
    private let reader = Locked<ContainerCore?>(nil)
    /// Tells documents and queries when `main` moves.
    let observer: MainObserver
    /// The key-value store's change streams, told of account changes.
    let keyValueContinuations = Locked<[UUID: AsyncStream<KeyValueChange>.Continuation]>([:])
    /// The commits `main` was seen at, with their causes and whether another process made them,
    /// the latest last (at most 32); this process's writes record theirs under the core's lock.
    private let knownHeads = Locked<[(head: String, cause: DocumentChange.Cause, byAnotherProcess: Bool)]>([])
    /// How many writes of this process hold or wait for the core.
    private let writesUnderWay = Locked(0)
    /// How many syncs of this container are under way in this process
    /// (``DocumentState/progressAvailable``).
    let syncsUnderWay = Locked(0)

    init(core: sending ContainerCore, options: Options) {
        root = core.workTree.root
        device = core.device
        let gitDirectory = core.repository.gitDirectory
        self.gitDirectory = gitDirectory
        self.options = options
        let locked = Locked(core)
        self.core = locked
        observer = MainObserver(gitDirectory: gitDirectory, interval: options.watchInterval) {
            // While a write holds the core, `main` is read from its file: a sync never delays the news.
            (try? locked.withLockIfAvailable { try $0.history.head()?.hex }).flatMap { $0 }
                ?? (try? LocalCloud.reference(ContainerLayout.main, gitDirectory: gitDirectory))??.hex
        }
    }

    /// Runs `body` with the core, one caller at a time.
    func withCore<T: Sendable>(_ body: (ContainerCore) throws -> T) throws -> T {
        try core.withLock { core throws -> T in try body(core) }
    }

    /// Runs a read with the core when no other caller holds it, else with a second core of its
    /// own (opened on first need, one reader at a time), so that a read never waits behind a
    /// write of this process — a sync waiting for the network, or for another process's lock.
    /// Both see what is committed: a read meanwhile sees `main` before the write moves it, as
    /// another process would.
    func read<T: Sendable>(_ body: (ContainerCore) throws -> T) throws -> T {
        if let result = try core.withLockIfAvailable({ try body($0) }) { return result }
        return try reader.withLock { reader throws -> T in
            if reader == nil {
                let repository = try ConcordError.wrap("cannot open the container") { try Repository.open(at: root) }
                reader = try ContainerCore(repository: repository, options: options)
            }
            return try body(reader!)
        }
    }

    /// ``read(_:)`` on a queue of its own (``Blocking``), so that the caller's executor never blocks on disk.
    func offloadRead<T: Sendable>(_ body: @escaping @Sendable (ContainerCore) throws -> T) async throws -> T {
        try await background { try self.read(body) }
    }

    /// Runs a write with the core, one caller at a time, remembers the commit it left `main` at
    /// as this process's (``DocumentChange/byAnotherProcess``), and tells open documents and
    /// queries that `main` may have moved.
    func write<T: Sendable>(_ cause: DocumentChange.Cause, _ body: (ContainerCore) throws -> T) throws -> T {
        writesUnderWay.withLock { $0 += 1 }
        defer {
            writesUnderWay.withLock { $0 -= 1 }
            observer.check()
        }
        return try core.withLock { core throws -> T in
            defer { remember(core, cause) }
            return try body(core)
        }
    }

    /// ``write(_:_:)`` on a queue of its own (``Blocking``). While another caller holds the core (a sync under way
    /// in this process), the write waits as one that readers see (``WaitingWrite``), like a write
    /// waiting for another process.
    /// A sync (`showsWaiting` false) waits without being seen.
    func offloadWrite<T: Sendable>(
        _ cause: DocumentChange.Cause, showsWaiting: Bool = true, _ body: @escaping @Sendable (ContainerCore) throws -> T
    ) async throws -> T {
        writesUnderWay.withLock { $0 += 1 }
        defer {
            writesUnderWay.withLock { $0 -= 1 }
            observer.check()
        }
        let core = core, gitDirectory = gitDirectory
        return try await withCheckedThrowingContinuation { continuation in
            Blocking.queue().async { [self] in
                continuation.resume(
                    with: Result {
                        let run = { (core: ContainerCore) throws -> T in
                            defer { self.remember(core, cause) }
                            return try body(core)
                        }
                        if let result = try core.withLockIfAvailable({ try run($0) }) { return result }
                        var waiting = showsWaiting ? WaitingWrite(gitDirectory: gitDirectory) : nil
                        return try core.withLock { core in
                            if waiting != nil { waiting = nil }
                            return try run(core)
                        }
                    })
            }
        }
    }

    /// Runs `body` (a blocking public call) on a queue of its own (``Blocking``): the async forms of the calls that
    /// are more than one read or write of the core.
    func background<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await Self.background(body)
    }

    /// Runs `body` on a queue of its own (``Blocking``) (``background(_:)``, for the static calls).
    static func background<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await Blocking.run(body)
    }

    /// Records the commit `main` is at as one this process wrote, for `cause`.
    private func remember(_ core: ContainerCore, _ cause: DocumentChange.Cause) {
        guard let head = (try? core.history.head())??.hex else { return }
        remember(head, cause, byAnotherProcess: false)
    }

    private func remember(_ head: String, _ cause: DocumentChange.Cause, byAnotherProcess: Bool) {
        knownHeads.withLock { heads in
            heads.removeAll { $0.head == head }
            heads.append((head, cause, byAnotherProcess))
            if heads.count > 32 { heads.removeFirst(heads.count - 32) }
        }
    }

    /// What made `main` move to `head`, and whether another process did. A head this process
    /// has not seen yet is waited for only while a write of this process is under way (it may be
    /// that write's, not remembered yet); else it is another process's, read from its commit.
    func cause(ofMain head: String) -> (cause: DocumentChange.Cause, byAnotherProcess: Bool) {
        func known() -> (DocumentChange.Cause, Bool)? {
            knownHeads.withLock { heads in heads.last { $0.head == head }.map { ($0.cause, $0.byAnotherProcess) } }
        }
        if let known = known() { return known }
        if writesUnderWay.withLock({ $0 > 0 }) {
            _ = try? withCore { _ in true }
            if let known = known() { return known }
        }
        let cause = (try? read { try $0.cause(ofMain: head) }) ?? .saved
        remember(head, cause, byAnotherProcess: true)
        return (cause, true)
    }

    /// Opens a handle on one document, to follow its state and changes. The document need not
    /// exist yet (as a UIDocument is made for a new file): its first save creates it.
    /// - Throws: ``ConcordError`` when the container cannot be read.
    @available(*, noasync, message: "blocks on disk: from async code, await the async form")
    public func openDocument(_ path: DocumentPath) throws -> Document {
        try Document(container: self, path: path)
    }

    /// The async form of the call above: the same work on a queue of its own (``Blocking``), so that the caller's
    /// executor (the main actor of an app) never waits on disk.
    public func openDocument(_ path: DocumentPath) async throws -> Document {
        try await background { try self.openDocument(path) }
    }

    /// Opens the container whose work tree is exactly `path`.
    /// - Throws: ``ConcordError/notAContainer(_:)`` when `path` is not one.
    @available(*, noasync, message: "blocks on disk: from async code, await the async form")
    public static func open(at path: String, options: Options = Options()) throws -> Container {
        let repository: Repository
        do {
            repository = try Repository.open(at: path)
        } catch {
            throw ConcordError.notAContainer(path)
        }
        let core = try ContainerCore(repository: repository, options: options)
        return Container(core: core, options: options)
    }

    /// The async form of the call above: the same work on a queue of its own (``Blocking``), so that the caller's
    /// executor (the main actor of an app) never waits on disk.
    public static func open(at path: String, options: Options = Options()) async throws -> Container {
        try await Self.background { try Self.open(at: path, options: options) }
    }

    /// The async form of the blocking `create`: the same work on a queue of its own (``Blocking``), so that the
    /// caller's executor never waits on disk or the cloud.
    public static func create(
        at path: String, deviceName: String? = nil, cloud: String? = nil, packagePatterns: [String] = [],
        options: Options = Options()
    ) async throws -> Container {
        try await background {
            try create(at: path, deviceName: deviceName, cloud: cloud, packagePatterns: packagePatterns, options: options)
        }
    }

    /// Creates a container at `path` (made when absent) with a first commit holding its
    /// package patterns. With `cloud`, the cloud is set as `origin` (a new bare repository is
    /// made when it is a local path that does not exist) and the first commit is pushed; when the
    /// cloud cannot be reached, the container is made offline (a warning to `options.logger`)
    /// and its first sync connects.
    ///
    /// A password, token or query in a network `cloud` URL is moved out of it before anything is
    /// written: `.git/config` holds the URL without them, the credentials store (0600) holds them
    /// (as it holds `CONCORD_CLOUD_USERNAME` and `CONCORD_CLOUD_PASSWORD` for an https cloud).
    /// - Throws: ``ConcordError/alreadyAContainer(_:)``, ``ConcordError/cloudHasContainer(_:)``,
    ///   ``ConcordError/cloudRefused(_:)`` when it refused the credentials or this device refused
    ///   its host key or certificate. Nothing is left at `path` then.
    @available(*, noasync, message: "blocks on disk: from async code, await the async form")
    public static func create(
        at path: String, deviceName: String? = nil, cloud: String? = nil, packagePatterns: [String] = [],
        options: Options = Options()
    ) throws -> Container {
        let fileManager = FileManager.default
        if fileManager.fileExists(atPath: "\(path)/.git") { throw ConcordError.alreadyAContainer(path) }
        try ContainerCore.checkPackagePatterns(packagePatterns)
        let address = cloud.map(CloudAddress.init)
        var createdCloud: String?
        if case let .local(local)? = address?.transport, !fileManager.fileExists(atPath: local) {
            _ = try ConcordError.wrap("cannot create the cloud at \(local)") {
                try Repository.create(at: local, bare: true)
            }
            createdCloud = local
        }
        let existed = fileManager.fileExists(atPath: path)
        do {
            let repository = try ConcordError.wrap("cannot create a repository at \(path)") {
                try Repository.create(at: path, bare: false)
            }
            try DeviceSettings(repository: repository).configureNewDevice(name: deviceName, id: options.deviceID)
            try ConcordError.wrap("cannot write the configuration") {
                if let address { try repository.setRemote("origin", url: address.url) }
            }
            let given = address.flatMap(CloudEnvironment.current.givenSecrets)
            try given?.secrets.save(gitDirectory: repository.gitDirectory)
            let core = try ContainerCore(repository: repository, options: options)
            // A cloud that cannot be reached does not stop a device from starting (an iPhone
            // creates documents before it ever reaches iCloud): the container remembers it and
            // the first sync connects, refusing then a cloud that holds another container.
            let link = try address.map { _ in try core.cloudLink(secretsSource: given?.source) }
            var reached = link != nil
            var cloudMain: OID?
            do {
                cloudMain = try link?.fetch(progress: nil)
            } catch let ConcordError.offline(reason, _) {
                reached = false
                options.logger.warning("the cloud was not reached (\(reason)): the container starts offline, and its first sync connects")
            }
            if let address, cloudMain != nil {
                throw ConcordError.cloudHasContainer(CloudText.redacted(address.url))
            }
            try core.createFirstCommit(packagePatterns: packagePatterns)
            if reached, try link?.push() == .cloudMoved, let address { throw ConcordError.cloudHasContainer(CloudText.redacted(address.url)) }
            return Container(core: core, options: options)
        } catch {
            if existed { try? fileManager.removeItem(atPath: "\(path)/.git") } else { try? fileManager.removeItem(atPath: path) }
            if let createdCloud { try? fileManager.removeItem(atPath: createdCloud) }
            throw error
        }
    }

    /// Joins the container in the cloud at `url` as a new device with its own clone at `path`.
    /// Secrets in a network `url` are kept as ``create(at:deviceName:cloud:packagePatterns:options:)`` keeps them.
    /// - Throws: ``ConcordError/failed(_:)`` when the cloud cannot be reached or holds no
    ///   container, ``ConcordError/cloudRefused(_:)`` when credentials, host key or certificate
    ///   were refused, ``ConcordError/damagedFromCloud(url:reason:)`` and
    ///   ``ConcordError/refusedFromCloud(commit:path:reason:)`` when what it sent cannot be taken.
    ///   Nothing is left at `path` then.
    @available(*, noasync, message: "blocks on disk: from async code, await the async form")
    public static func clone(from url: String, to path: String, deviceName: String? = nil, options: Options = Options()) throws -> Container {
        let fileManager = FileManager.default
        if let contents = try? fileManager.contentsOfDirectory(atPath: path), !contents.isEmpty {
            guard UnfinishedClone.isLeft(at: path) else { throw ConcordError.failed("\(path) exists and is not empty") }
            // What a killed clone left: nothing of it is anyone's yet.
            try ConcordError.wrap("cannot remove the unfinished clone at \(path)") { try fileManager.removeItem(atPath: "\(path)/.git") }
        }
        let existed = fileManager.fileExists(atPath: path)
        do {
            let address = CloudAddress(url)
            let (repository, cloudMain) = try CloudLink.clone(address, to: path, lockTimeout: options.lockTimeout, progress: options.progress)
            guard let remoteMain = cloudMain else {
                throw ConcordError.failed("the cloud \(CloudText.redacted(address.url)) holds no container (no main branch)")
            }
            try ArrivalCheck(limits: .current(in: nil, containerFileSize: ContainerLimits.fileSize(at: remoteMain, in: repository)))
                .check(repository, from: [remoteMain], hiding: [])
            // Once what arrived passed its check, the history index is built on a second core
            // while the checkout runs (each reads the objects through a store of its own), not by
            // the first save (a long history's 12 s), and the first `log` does not walk the whole
            // history. It is waited for before anything leaves this scope: a clone that fails
            // removes its folder after it.
            let indexBuilt = HistoryIndexBuild.start(repositoryAt: path, at: remoteMain)
            defer { indexBuilt.wait() }
            // The first checkout goes through the journal: a clone killed after main is set is
            // finished by the next writer, never a container whose work tree lacks documents.
            try ConcordError.wrap("cannot set up the clone") {
                try Checkout.writeJournal(in: repository, old: nil, new: repository.treeID(ofCommit: remoteMain))
            }
            try ConcordError.wrap("cannot set up the clone") {
                try repository.forceReference(ContainerLayout.remoteMain, to: remoteMain, message: "concord: clone")
                try repository.forceReference(ContainerLayout.main, to: remoteMain, message: "concord: clone")
                try repository.setHead(ContainerLayout.main)
            }
            try DeviceSettings(repository: repository).configureNewDevice(name: deviceName, id: options.deviceID)
            UnfinishedClone.unmark(repository)
            CrashPoint.reach("clone:configured")
            let core = try ContainerCore(repository: repository, options: options)
            try core.checkout.update(from: nil, to: try core.history.tree(of: remoteMain), force: true)
            core.checkout.finishJournal()
            indexBuilt.wait()
            // Brings the index to main when the build above could not (a writer's usual update).
            try core.writer.write {}
            return Container(core: core, options: options)
        } catch {
            if existed { try? fileManager.removeItem(atPath: "\(path)/.git") } else { try? fileManager.removeItem(atPath: path) }
            throw error
        }
    }

    /// The async form of the call above: the same work on a queue of its own (``Blocking``), so that the caller's
    /// executor (the main actor of an app) never waits on disk.
    public static func clone(from url: String, to path: String, deviceName: String? = nil, options: Options = Options()) async throws -> Container {
        try await Self.background { try Self.clone(from: url, to: path, deviceName: deviceName, options: options) }
    }

    /// The cloud's URL (passwords replaced by `***`); nil when the container has none.
    public var cloudURL: String? {
        (try? read { try $0.repository.remoteURL("origin") }).flatMap { $0 }.map(CloudText.redacted)
    }

    /// True while airplane mode is on: sync refuses the network, saving goes on.
    public var isAirplaneModeOn: Bool {
        (try? read { try DeviceSettings(repository: $0.repository).isAirplaneModeOn() }) == true
    }

    /// Turns airplane mode on or off for this device.
    @available(*, noasync, message: "blocks on disk: from async code, await the async form")
    public func setAirplaneMode(_ on: Bool) throws {
        try withCore { core in
            try core.writer.write {
                try DeviceSettings(repository: core.repository).setAirplaneMode(on)
            }
        }
    }

    /// The async form of the call above: the same work on a queue of its own (``Blocking``), so that the caller's
    /// executor (the main actor of an app) never waits on disk.
    public func setAirplaneMode(_ on: Bool) async throws {
        try await background { try self.setAirplaneMode(on) }
    }

    /// How many versions saved here have not gone up to the cloud yet.
    @available(*, noasync, message: "blocks on disk: from async code, await the async form")
    public func waitingVersionCount() throws -> Int {
        try read { try $0.waitingVersionCount() }
    }

    /// The async form of the call above: the same work on a queue of its own (``Blocking``), so that the caller's
    /// executor (the main actor of an app) never waits on disk.
    public func waitingVersionCount() async throws -> Int {
        try await offloadRead { try $0.waitingVersionCount() }
    }
}
