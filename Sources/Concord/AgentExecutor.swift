internal import Dispatch

/// Where a sync agent's loop runs: a serial queue of its own, not Swift's shared pool of
/// threads. An app whose tasks keep that pool busy (blocking reads, long computations, a test
/// runner starting hundreds of tests at once) would otherwise delay the agent's answer to an
/// edit by as long as the work queued before it.
final class AgentExecutor: TaskExecutor {
    private let queue: DispatchQueue

    /// An executor on a new serial queue named `label`.
    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
