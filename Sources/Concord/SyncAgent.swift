internal import FoundationEssentials
internal import Glibc
internal import Git
internal import GitFormat

/// The sync agent (the role iCloud's daemon plays for a device): it keeps a container in sync
/// with nobody calling ``Container/saveAll()`` or ``Container/sync()``.
///
/// It watches the work tree with inotify (new folders included, editors that save by renaming
/// a new file over the old one included, Concord's own writes left out), waits for a short quiet
/// moment after edits, saves what changed in one version (as ``Container/saveAll()`` does) and
/// syncs. It also syncs every ``Options/interval`` to receive other devices' versions, at once
/// when another process moves `main` (a resolve typed in a terminal) or turns airplane mode off,
/// and at once when another device pushes to the cloud: a cloud that is a folder on this machine
/// is watched with inotify, and a network cloud's `main` is checked every ``Options/peekInterval``
/// (a session that reads the references the server advertises, no object transferred, on a
/// connection kept from one check to the next over ssh and https), a full sync following only
/// when it moved.
///
/// In airplane mode, or while the cloud cannot be reached, it goes on saving and reports
/// ``SyncAgentEvent/Kind/offline`` once; it retries with a backoff that doubles from one second
/// up to the interval, and reports ``SyncAgentEvent/Kind/backOnline`` when a sync succeeds
/// again. A sync never overwrites an edit that is not saved yet: the agent saves it first and
/// syncs again. Between events it costs nothing over a cloud on this machine: no thread polls,
/// and the only timer is the periodic sync; over a network cloud, the check of its `main` is the
/// other timer (a failed check goes offline as a failed sync does, and backs off the same way). It runs on a serial queue of its own, not on Swift's shared pool of threads:
/// an app whose tasks keep that pool busy does not delay it. Once an agent has started, the
/// process's allocator gives large blocks back to the system when they are freed
/// (``GitLibrary/returnLargeBlocksWhenFreed()``), so that an agent returns to about the memory it
/// started with after a large file.
///
/// ```swift
/// let agent = try container.watch()
/// for await event in agent.events {
///     print(event.kind, event.documents)
/// }
/// ```
///
/// ``stop()`` (or ending the iteration of ``events``) stops it after the operation under way;
/// an agent killed outright leaves the container as any interrupted command does (valid, nothing
/// saved lost), and the next start saves the edits it had not saved.
public final class SyncAgent: Sendable {
    /// How the agent paces itself.
    public struct Options: Sendable {
        /// How often it syncs when nothing else makes it sync, to receive other devices' versions
        /// (default 30 seconds); also the longest wait between retries.
        public var interval: Duration
        /// How long the work tree must stay quiet after an edit before it saves (default 0.2 seconds).
        public var quietPeriod: Duration
        /// The longest an edit waits for quiet while edits keep coming (default 5 seconds).
        public var longestWait: Duration
        /// How long a file its writer has not closed yet is left unsaved (default 60 seconds):
        /// a file written slowly is saved once, whole, when its writer closes it (one the agent
        /// found open without having seen it opened, in a new folder or at its start,
        /// included); past this bound it is saved as it stands, and again once closed.
        public var longestWrite: Duration
        /// How often it checks a network cloud's `main` between syncs (default 1 second), syncing
        /// when it moved; nil or zero: never, the cloud's changes then arrive at the periodic sync.
        /// A cloud on this machine needs no check: inotify tells of its changes.
        public var peekInterval: Duration?

        /// Makes options; the defaults suit a person editing documents.
        public init(
            interval: Duration = .seconds(30), quietPeriod: Duration = .milliseconds(200), longestWait: Duration = .seconds(5),
            longestWrite: Duration = .seconds(60), peekInterval: Duration? = .seconds(1)
        ) {
            self.interval = interval
            self.quietPeriod = quietPeriod
            self.longestWait = longestWait
            self.longestWrite = longestWrite
            self.peekInterval = peekInterval
        }
    }

    /// What the agent does, in order, starting with ``SyncAgentEvent/Kind/watching``; the
    /// stream ends when the agent has stopped. Iterate it once.
    public let events: AsyncStream<SyncAgentEvent>
    private let loop: AgentLoop
    private let task: Task<Void, Never>

    /// Starts an agent, holding `.git/concord/agent` (released when it stops, or by the kernel
    /// when the process dies) so that a second agent on the same container is refused; the file
    /// holds the agent's process id (``Container/agentStatus()``).
    init(container: Container, options: Options) throws {
        let file = Self.lockFile(gitDirectory: container.gitDirectory)
        try? FileManager.default.createDirectory(atPath: "\(container.gitDirectory)concord", withIntermediateDirectories: true)
        let held: Locked<ContainerLock?>
        do {
            // A moment's wait: a reader asking whether an agent runs holds the file that long.
            held = Locked(try ContainerLock(file: file, holder: container.root, timeout: 0.5))
        } catch ConcordError.busy {
            throw ConcordError.failed("another sync agent is already running on \(container.root)")
        }
        held.withLock { $0?.record("\(getpid())\n") }
        GitLibrary.returnLargeBlocksWhenFreed()
        let (events, continuation) = AsyncStream.makeStream(of: SyncAgentEvent.self, bufferingPolicy: .unbounded)
        let loop = AgentLoop(container: container, options: options) { continuation.yield($0) }
        self.events = events
        self.loop = loop
        task = Task.detached(executorPreference: loop.executor) {
            await loop.run()
            held.withLock { $0 = nil }
            continuation.finish()
        }
        continuation.onTermination = { _ in loop.stop() }
    }

    /// The file a running agent holds locked, in the git directory `gitDirectory`.
    static func lockFile(gitDirectory: String) -> String { gitDirectory + ContainerLayout.agent }

    /// Asks the agent to stop: it finishes the operation under way (a save or a sync), then
    /// ends ``events``. Calling it again does nothing more.
    public func stop() { loop.stop() }

    /// Waits until the agent has stopped (after ``stop()``).
    public func stopped() async { await task.value }
}
