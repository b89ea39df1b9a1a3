internal import FoundationEssentials
internal import Dispatch
internal import Synchronization

/// Tells subscribers when the container's `main` moves — by a command in this process (told
/// at once) or in another process (seen through inotify on the repository's references, see
/// ``ReferenceWatch``). Where inotify cannot be used, it polls the reference every `interval`
/// instead, on a Dispatch timer, so that the poll goes on when callers keep Swift's cooperative
/// threads busy with blocking work.
///
/// Subscribers are also told (with a move where `old == new`) when the configuration changes or
/// a writer releases the container's lock, so that documents can leave `editingDisabled`.
final class MainObserver: Sendable {
    /// A move of `main`, as commit ids; `old == new` when something else changed.
    struct Move: Sendable {
        var old: String?
        var new: String?
        var moved: Bool { old != new }
    }

    private struct State {
        var last: String?
        var subscribers: [UUID: @Sendable (Move) -> Void] = [:]
        var watch: ReferenceWatch?
        var poller: (any DispatchSourceTimer)?
    }

    private let state = Mutex(State())
    private let gitDirectory: String
    private let interval: Duration
    private let readMain: @Sendable () -> String?
    /// Whether a writer holds the container's lock, asked without waking this observer.
    let lock: LockProbe

    init(gitDirectory: String, interval: Duration, readMain: @escaping @Sendable () -> String?) {
        self.gitDirectory = gitDirectory
        self.interval = interval
        self.readMain = readMain
        lock = LockProbe(gitDirectory: gitDirectory)
    }

    /// Registers `handler`; watching starts with the first subscriber.
    func subscribe(_ handler: @escaping @Sendable (Move) -> Void) -> UUID {
        let id = UUID()
        let current = readMain()
        state.withLock { state in
            if state.subscribers.isEmpty { state.last = current }
            state.subscribers[id] = handler
            if state.watch == nil && state.poller == nil { startWatching(&state) }
        }
        return id
    }

    /// Removes a subscriber; watching stops with the last one.
    func unsubscribe(_ id: UUID) {
        state.withLock { state in
            state.subscribers[id] = nil
            if state.subscribers.isEmpty {
                state.watch?.cancel()
                state.watch = nil
                state.poller?.cancel()
                state.poller = nil
            }
        }
    }

    /// Reads `main` and tells every subscriber (a move, or a tick when it did not move).
    func check() {
        let current = readMain()
        let (move, handlers) = state.withLock { state -> (Move, [@Sendable (Move) -> Void]) in
            let move = Move(old: state.last, new: current)
            state.last = current
            return (move, Array(state.subscribers.values))
        }
        for handler in handlers { handler(move) }
    }

    private func startWatching(_ state: inout State) {
        if let watch = try? ReferenceWatch(gitDirectory: gitDirectory, lock: true, onChange: { [weak self] in self?.check() }) {
            state.watch = watch
            return
        }
        let timer = DispatchSource.makeTimerSource(queue: Blocking.queue("concord.main-poll"))
        let interval = self.interval.components
        let nanoseconds = Int(interval.seconds) * 1_000_000_000 + Int(interval.attoseconds / 1_000_000_000)
        timer.schedule(deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds))
        timer.setEventHandler { [weak self] in self?.check() }
        timer.resume()
        state.poller = timer
    }

    deinit {
        state.withLock { state in
            state.watch?.cancel()
            state.poller?.cancel()
        }
    }
}
