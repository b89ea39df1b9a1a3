internal import Glibc

/// A thread of its own for work that blocks (the network watch's loop, a name resolution), so that
/// none of Dispatch's shared threads is held by it.
enum DetachedThread {
    private final class Work {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    /// Runs `body` on a new detached thread.
    static func start(_ body: @escaping @Sendable () -> Void) {
        let work = Unmanaged.passRetained(Work(body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(
            &thread, nil,
            { argument in
                Unmanaged<Work>.fromOpaque(argument!).takeRetainedValue().body()
                return nil
            }, work)
        guard result == 0 else {
            Unmanaged<Work>.fromOpaque(work).release()
            preconditionFailure("cannot start a thread: \(String(cString: strerror(result)))")
        }
        pthread_detach(thread)
    }
}
