import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP proxy on a free port of 127.0.0.1 in front of a server's port, seen from Concord as the
/// server: it counts the connections made to it and plays a server that closes them, two ways.
///
/// - ``closeConnections()``: the server closes every connection now (an idle time-out, a
///   restart): its FIN reaches the client at once. A client that sends a request on such a
///   connection afterwards is counted (``requestsAfterClose``): TLS's application data, record
///   type 23, as opposed to the alert (21) a client sends as it closes its side.
/// - ``dropAtNextRequest()``: every open connection is lost without the client knowing (a
///   server restarted behind a load balancer, a NAT that forgot it): the next bytes the client
///   sends on it are not forwarded, and it is closed without an answer.
///
/// One thread accepts, one thread a connection; ``stop()`` ends them all.
final class ConnectionProxy: @unchecked Sendable {
    let port: Int
    private let target: Int
    private let listener: Int32
    private let lock = NSLock()
    private var connections: [Connection] = []
    private var acceptedCount = 0
    private var answeredBytes = 0
    private var upstreamPorts: Set<Int> = []
    private var requestsAfterCloseCount = 0
    private var stopped = false

    /// One connection through the proxy: the client's socket and the server's; the flags are
    /// read and written under the proxy's lock.
    private final class Connection: @unchecked Sendable {
        let client: Int32
        let upstream: Int32
        /// The server closed it (``closeConnections()``): the client's side is shut for writing.
        var closed = false
        /// Lost (``dropAtNextRequest()``): the client's next bytes end it.
        var dropping = false
        var ended = false

        init(client: Int32, upstream: Int32) {
            self.client = client
            self.upstream = upstream
        }
    }

    /// Starts a proxy to `target`, a port of 127.0.0.1.
    init(to target: Int) throws {
        self.target = target
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var on: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        var address = ServerProcess.socketAddress(0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 64) == 0 else {
            close(listener)
            throw ServerError("the proxy cannot listen: \(String(cString: strerror(errno)))")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        self.listener = listener
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    deinit { stop() }

    /// The connections clients made to the proxy so far.
    var accepted: Int { lock.withLock { acceptedCount } }

    /// The bytes the server sent clients through the proxy so far.
    var received: Int { lock.withLock { answeredBytes } }

    /// The ports of the proxy's own connections to the server: what the server's access log
    /// names the requests that came through the proxy by.
    var serverSidePorts: Set<Int> { lock.withLock { upstreamPorts } }

    /// Requests clients sent on connections after the proxy had closed them.
    var requestsAfterClose: Int { lock.withLock { requestsAfterCloseCount } }

    /// Closes every open connection as a server does: its FIN goes to the client now, and the
    /// connection to the server is closed.
    /// Returns once each client's system acknowledged the FIN: the client can see the close.
    func closeConnections() {
        let closing = lock.withLock { () -> [Connection] in
            let open = connections.filter { !$0.ended && !$0.closed }
            for connection in open {
                connection.closed = true
                shutdown(connection.client, Int32(SHUT_WR))
                shutdown(connection.upstream, Int32(SHUT_RDWR))
            }
            return open
        }
        for connection in closing {
            _ = eventually(5) { lock.withLock { connection.ended } || Self.state(of: connection.client) != Self.finWait1 }
        }
    }

    /// Loses every open connection without telling its client: the next bytes the client sends
    /// on one are dropped and the connection closed, unanswered.
    func dropAtNextRequest() {
        lock.withLock {
            for connection in connections where !connection.ended { connection.dropping = true }
        }
    }

    /// Stops accepting and closes every connection.
    func stop() {
        let open = lock.withLock { () -> [Connection] in
            guard !stopped else { return [] }
            stopped = true
            shutdown(listener, Int32(SHUT_RDWR))
            return connections.filter { !$0.ended }
        }
        for connection in open {
            shutdown(connection.client, Int32(SHUT_RDWR))
            shutdown(connection.upstream, Int32(SHUT_RDWR))
        }
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                break
            }
            let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = ServerProcess.socketAddress(target)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                close(upstream)
                close(client)
                continue
            }
            let connection = Connection(client: client, upstream: upstream)
            let accepted = lock.withLock { () -> Bool in
                guard !stopped else { return false }
                acceptedCount += 1
                connections.append(connection)
                if let port = Self.localPort(of: upstream) { upstreamPorts.insert(port) }
                return true
            }
            guard accepted else {
                close(upstream)
                close(client)
                break
            }
            Thread.detachNewThread { [self] in pump(connection) }
        }
        close(listener)
    }

    /// Moves bytes both ways until either side ends, playing the closes asked for.
    private func pump(_ connection: Connection) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        defer {
            lock.withLock { connection.ended = true }
            close(connection.client)
            close(connection.upstream)
        }
        while true {
            let closed = lock.withLock { connection.closed }
            var requests = [
                pollfd(fd: connection.client, events: Int16(POLLIN), revents: 0),
                pollfd(fd: closed ? -1 : connection.upstream, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&requests, 2, 50)
            if ready < 0 && errno != EINTR { return }
            if requests[0].revents != 0 {
                let count = recv(connection.client, &buffer, buffer.count, 0)
                guard count > 0 else { return }
                if closed {
                    // TLS record type 23: application data, a request; an alert (21) is the
                    // client closing its side.
                    if buffer[0] == 23 { lock.withLock { requestsAfterCloseCount += 1 } }
                    continue
                }
                // Read after the bytes arrived: a request sent while the poll waited is dropped too.
                if lock.withLock({ connection.dropping }) { return }
                guard send(connection.upstream, buffer, count, Int32(MSG_NOSIGNAL)) == count else { return }
            }
            if !closed, requests[1].revents != 0 {
                let count = recv(connection.upstream, &buffer, buffer.count, 0)
                if lock.withLock({ connection.closed }) { continue }
                guard count > 0, send(connection.client, buffer, count, Int32(MSG_NOSIGNAL)) == count else { return }
                lock.withLock { answeredBytes += count }
            }
        }
    }

    /// The local port `socket` is bound to; nil when it cannot be read.
    private static func localPort(of socket: Int32) -> Int? {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let read = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        return read == 0 ? Int(UInt16(bigEndian: address.sin_port)) : nil
    }

    /// TCP's state FIN-WAIT-1 (Linux's `TCP_FIN_WAIT1`): the FIN sent, not acknowledged yet.
    private static let finWait1: UInt8 = 4

    /// The TCP state of `socket` (Linux's `tcpi_state`); nil when it cannot be read.
    private static func state(of socket: Int32) -> UInt8? {
        var info = tcp_info()
        var length = socklen_t(MemoryLayout<tcp_info>.size)
        guard getsockopt(socket, Int32(IPPROTO_TCP), TCP_INFO, &info, &length) == 0 else { return nil }
        return info.tcpi_state
    }
}
