internal import Foundation
internal import Synchronization

/// The one thread that watches every open connection (``SocketStream``): each tick it reads
/// every socket's byte counters and cuts the connections that stalled or received too much
/// before any object (``SocketStream/inspect(at:)``).
///
/// A thread of its own, because the thread that runs an operation is blocked inside libgit2 or
/// libssh2 (in `recv` or `poll`, without a time-out) exactly when a server stalls. The thread
/// starts with the first connection and sleeps while there is none.
enum NetworkWatch {
    /// How often the counters are read: the precision of the time-out, and of the answer's
    /// limit for ssh (the other transports' reads check it at once).
    static let tick: Duration = .milliseconds(50)

    private static let sockets = Mutex<[ObjectIdentifier: SocketStream]>([:])
    private static let woken = DispatchSemaphore(value: 0)
    private static let started: Void = Thread.detachNewThread { watch() }

    /// Watches `socket` from now until ``remove(_:)``.
    static func add(_ socket: SocketStream) {
        _ = started
        let first = sockets.withLock { sockets in
            sockets[ObjectIdentifier(socket)] = socket
            return sockets.count == 1
        }
        if first { woken.signal() }
    }

    /// Stops watching `socket`.
    static func remove(_ socket: SocketStream) {
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
            Thread.sleep(forTimeInterval: tick / .seconds(1))
        }
    }
}
