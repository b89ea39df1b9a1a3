internal import FoundationEssentials
internal import Glibc
internal import Dispatch
internal import Synchronization

/// A connection the network watch looks at each tick: a socket libgit2 opened
/// (``SocketStream``), or an `ssh` child (``SSHProcess``).
protocol WatchedConnection: AnyObject, Sendable {
    /// Reads the connection's byte counters and cuts it when it stalled or received too much
    /// before any object.
    /// - Returns: the verdict when this call cut it.
    @discardableResult
    func inspect(at now: ContinuousClock.Instant) -> NetworkOperation.Verdict?
}

/// The one thread that watches every open connection (``WatchedConnection``): each tick it reads
/// every connection's byte counters and cuts those that stalled or received too much before any
/// object.
///
/// A thread of its own, because the thread that runs an operation is blocked inside libgit2
/// or mbedTLS (in `recv`, without a time-out) exactly when a server stalls. The thread
/// starts with the first connection and sleeps while there is none.
enum NetworkWatch {
    /// How often the counters are read: the precision of the time-out, and of the answer's
    /// limit for ssh (the other transports' reads check it at once).
    static let tick: Duration = .milliseconds(50)

    private static let sockets = Mutex<[ObjectIdentifier: any WatchedConnection]>([:])
    private static let woken = DispatchSemaphore(value: 0)
    private static let started: Void = DetachedThread.start { watch() }

    /// Watches `socket` from now until ``remove(_:)``.
    static func add(_ socket: any WatchedConnection) {
        _ = started
        let first = sockets.withLock { sockets in
            sockets[ObjectIdentifier(socket)] = socket
            return sockets.count == 1
        }
        if first { woken.signal() }
    }

    /// Stops watching `socket`.
    static func remove(_ socket: any WatchedConnection) {
        _ = sockets.withLock { $0.removeValue(forKey: ObjectIdentifier(socket)) }
    }

    private static func watch() -> Never {
        while true {
            let watched = sockets.withLock { Array($0.values) }
            if watched.isEmpty {
                woken.wait()
                continue
            }
            let now = ContinuousClock.now
            for socket in watched { socket.inspect(at: now) }
            usleep(UInt32(tick / .microseconds(1)))
        }
    }
}
