internal import Dispatch

/// Where Concord runs work that blocks (libgit2, files, locks, a network cloud) and the timers
/// that wake its loops: a queue of their own, never Dispatch's global queue.
///
/// The global queue's threads are as many as the cores; when work there blocks, Dispatch adds
/// threads only about one a second, and work queued behind blocked calls waits for all of them.
/// An app (or a test process) with many blocking calls under way starved the agent: with 16
/// calls holding the global queue, a file left open with a 2 s bound was saved after 16 s
/// (after 2 s with queues of their own). A serial queue runs on Dispatch's overcommit threads,
/// which start at once when none is free.
enum Blocking {
    /// A new serial queue for one piece of work or one timer, named `label` in a debugger.
    static func queue(_ label: String = "concord.blocking") -> DispatchQueue {
        DispatchQueue(label: label)
    }

    /// Runs `body` on a queue of its own and returns (or throws) what it did.
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue().async { continuation.resume(with: Result { try body() }) }
        }
    }

    /// Runs `body` on a queue of its own, not waiting for it.
    static func start(_ body: @escaping @Sendable () -> Void) {
        queue().async(execute: body)
    }
}
