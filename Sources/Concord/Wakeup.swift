internal import FoundationEssentials
internal import Dispatch
internal import Synchronization

/// Lets one task sleep until another thread has news for it, or until a deadline: the sleep
/// costs nothing (no polling), and a signal sent while nobody sleeps is kept for the next sleep.
final class Wakeup: Sendable {
    private struct State {
        var signaled = false
        var sleeper: CheckedContinuation<Void, Never>?
        var timer: (any DispatchSourceTimer)?
    }

    private let state = Mutex(State())

    /// Wakes the sleeper, or the next one when nobody sleeps now.
    func signal() {
        let sleeper = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let sleeper = state.sleeper else {
                state.signaled = true
                return nil
            }
            state.sleeper = nil
            state.timer?.cancel()
            state.timer = nil
            return sleeper
        }
        sleeper?.resume()
    }

    /// Sleeps until ``signal()`` or until `deadline` (forever when nil); returns at once when a
    /// signal came since the last sleep. One sleeper at a time.
    func sleep(until deadline: ContinuousClock.Instant?) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state -> Bool in
                if state.signaled {
                    state.signaled = false
                    return true
                }
                guard let deadline else {
                    state.sleeper = continuation
                    return false
                }
                let delay = ContinuousClock.now.duration(to: deadline)
                guard delay > .zero else { return true }
                state.sleeper = continuation
                let timer = DispatchSource.makeTimerSource(queue: Blocking.queue("concord.wakeup"))
                let (seconds, attoseconds) = delay.components
                // A tenth of the delay as leeway (at most a second), so the kernel can group wake-ups.
                timer.schedule(
                    deadline: .now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)),
                    leeway: .milliseconds(min(1000, Int(seconds) * 100 + Int(attoseconds / 10_000_000_000_000_000))))
                timer.setEventHandler { [weak self] in self?.signal() }
                state.timer = timer
                timer.resume()
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }
}
