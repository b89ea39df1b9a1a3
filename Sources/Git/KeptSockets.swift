internal import Synchronization

/// The sockets of a kept transport (``KeptTransport``): those its HTTP client opened and holds
/// open from one operation to the next. A socket joins when it connects for an operation that
/// keeps its sockets here (``NetworkOperation/keptSockets``), and leaves when libgit2 closes it.
///
/// Between operations none is watched; each operation takes the open ones over
/// (``attach(to:)``), so that its own time-out and answer limit apply to them, and lets them go
/// when it ends (``detach()``).
final class KeptSockets: Sendable {
    private let sockets = Mutex<[ObjectIdentifier: SocketStream]>([:])

    /// Keeps `socket` until it closes.
    func add(_ socket: SocketStream) {
        sockets.withLock { $0[ObjectIdentifier(socket)] = socket }
    }

    /// Forgets `socket`, which closed.
    func remove(_ socket: SocketStream) {
        _ = sockets.withLock { $0.removeValue(forKey: ObjectIdentifier(socket)) }
    }

    /// True unless a socket kept was closed by the server (or reset, or cut): the connection
    /// cannot carry another operation.
    var allOpen: Bool {
        all.allSatisfy(\.isOpen)
    }

    /// Makes every open socket serve `operation`, watched from now.
    /// - Returns: true when there was one: the operation goes on over a connection already made.
    func attach(to operation: NetworkOperation) -> Bool {
        var reused = false
        for socket in all where socket.attach(to: operation) { reused = true }
        return reused
    }

    /// Takes every socket out of the watch: the operation ended, and they wait for the next.
    func detach() {
        for socket in all { socket.detach() }
    }

    private var all: [SocketStream] { sockets.withLock { Array($0.values) } }
}
