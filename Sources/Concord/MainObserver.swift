internal import Foundation
internal import Synchronization

/// Tells subscribers when the container's `main` moves — by a command in this process (told
/// at once) or in another process (seen by polling the reference, every `interval`). The poll
/// runs on a Dispatch timer, not a task, so that it goes on when callers keep Swift's
/// cooperative threads busy with blocking work.
final class MainObserver: Sendable {
    /// A move of `main`, as commit ids; `old == new` on a periodic tick with no move.
    struct Move: Sendable {
        var old: String?
        var new: String?
        var moved: Bool { old != new }
    }

    private struct State {
        var last: String?
        var subscribers: [UUID: @Sendable (Move) -> Void] = [:]
        var poller: (any DispatchSourceTimer)?
    }

    private let state = Mutex(State())
    private let interval: Duration
    private let readMain: @Sendable () -> String?

    init(interval: Duration, readMain: @escaping @Sendable () -> String?) {
        self.interval = interval
        self.readMain = readMain
    }

    /// Registers `handler`; polling starts with the first subscriber.
    func subscribe(_ handler: @escaping @Sendable (Move) -> Void) -> UUID {
        let id = UUID()
        let current = readMain()
        state.withLock { state in
            if state.subscribers.isEmpty { state.last = current }
            state.subscribers[id] = handler
            if state.poller == nil {
                let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global())
                let interval = self.interval.components
                let nanoseconds = Int(interval.seconds) * 1_000_000_000 + Int(interval.attoseconds / 1_000_000_000)
                timer.schedule(deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds))
                timer.setEventHandler { [weak self] in self?.check() }
                timer.resume()
                state.poller = timer
            }
        }
        return id
    }

    /// Removes a subscriber; polling stops with the last one.
    func unsubscribe(_ id: UUID) {
        state.withLock { state in
            state.subscribers[id] = nil
            if state.subscribers.isEmpty {
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

    deinit {
        state.withLock { $0.poller?.cancel() }
    }
}
