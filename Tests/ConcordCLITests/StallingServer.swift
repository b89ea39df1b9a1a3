import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A tiny TCP server on 127.0.0.1 that misbehaves on purpose, run on threads of the test process.
/// The test closes it (``close()``, at the latest when it drops it): that ends every connection
/// and waits for the server's threads.
final class StallingServer: Sendable {
    enum Behaviour: Sendable {
        /// Accepts, reads what comes and never answers.
        case silent
        /// Answers about a byte a second: the start of a reference advertisement that never ends.
        case drip
        /// Answers an endless reference advertisement (git's protocol), as fast as it is read.
        case endlessReferences
        /// Listens with a full backlog and accepts nothing: connecting never completes.
        case fullBacklog
    }

    private struct State {
        var connections: [Int32] = []
        var accepted = 0
        var closed = false
    }

    let port: Int
    private let behaviour: Behaviour
    private let listener: Int32
    /// Connections the test made itself to fill the backlog (``Behaviour/fullBacklog``).
    private let fillers: [Int32]
    private let state = Mutex(State())
    private let threads = DispatchGroup()

    /// Starts the server on a free port.
    init(_ behaviour: Behaviour) throws {
        self.behaviour = behaviour
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        // Its connections (which inherit the option) left waiting in TIME_WAIT must not keep a
        // server started next on the same port from binding it.
        var reuse: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(listener, address, length) == 0 && listen(listener, behaviour == .fullBacklog ? 0 : 16) == 0
                    && getsockname(listener, address, &length) == 0
            }
        }
        guard listener >= 0, bound else {
            if listener >= 0 { Glibc.close(listener) }
            throw ServerError("cannot start a stalling server: errno \(errno)")
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        guard behaviour != .fullBacklog else {
            // The backlog holds one connection; the next ones wait for a SYN-ACK that never comes.
            fillers = (0..<3).map { _ in Self.startConnecting(to: address) }
            return
        }
        fillers = []
        threads.enter()
        Thread.detachNewThread { [self] in
            acceptConnections()
            threads.leave()
        }
    }

    deinit { close() }

    /// `SCHEME://127.0.0.1:PORT/cloud.git`.
    func url(_ scheme: String = "git") -> String { "\(scheme)://127.0.0.1:\(port)/cloud.git" }

    /// The connections accepted so far.
    var accepted: Int { state.withLock { $0.accepted } }

    /// Ends every connection and stops listening; waits for the server's threads. The
    /// connections end with a reset, so that a server started next on the same port can bind it.
    func close() {
        let connections = state.withLock { state -> [Int32]? in
            guard !state.closed else { return nil }
            state.closed = true
            return state.connections
        }
        guard let connections else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        for connection in connections { shutdown(connection, Int32(SHUT_RDWR)) }
        threads.wait()
        var reset = linger(l_onoff: 1, l_linger: 0)
        for connection in connections { setsockopt(connection, SOL_SOCKET, SO_LINGER, &reset, socklen_t(MemoryLayout<linger>.size)) }
        for descriptor in [listener] + connections + fillers { Glibc.close(descriptor) }
    }

    private func acceptConnections() {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR { continue }
                return
            }
            let open = state.withLock { state in
                guard !state.closed else { return false }
                state.connections.append(connection)
                state.accepted += 1
                return true
            }
            guard open else {
                Glibc.close(connection)
                return
            }
            threads.enter()
            Thread.detachNewThread { [self] in
                serve(connection)
                threads.leave()
            }
        }
    }

    private func serve(_ connection: Int32) {
        switch behaviour {
        case .silent, .fullBacklog:
            while Self.discard(from: connection, waiting: -1) {}
        case .drip:
            for byte in Self.advertisement(from: 0).prefix(4096) {
                guard Self.send([byte], to: connection), Self.discard(from: connection, waiting: 1000) else { return }
            }
        case .endlessReferences:
            guard Self.discard(from: connection, waiting: -1) else { return }
            var next = 0
            while Self.send(Self.advertisement(from: next), to: connection) { next += 1000 }
        }
    }

    /// A thousand lines of a reference advertisement (pkt-lines), from reference number
    /// `first`; the first line of all names HEAD and the capabilities.
    private static func advertisement(from first: Int) -> [UInt8] {
        var text = ""
        for number in first..<first + 1000 {
            let id = String(repeating: "0", count: 40 - String(number + 1, radix: 16).count) + String(number + 1, radix: 16)
            let line = number == 0 ? "\(id) HEAD\0multi_ack side-band-64k ofs-delta\n" : "\(id) refs/tags/v\(number)\n"
            let length = String(line.utf8.count + 4, radix: 16)
            text += String(repeating: "0", count: 4 - length.count) + length + line
        }
        return Array(text.utf8)
    }

    private static func send(_ bytes: [UInt8], to connection: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    /// Waits up to `milliseconds` (-1: without end) for something to read and drops it.
    /// - Returns: false once the other side closed or the server was closed.
    private static func discard(from connection: Int32, waiting milliseconds: Int32) -> Bool {
        var request = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
        let ready = poll(&request, 1, milliseconds)
        if ready < 0 { return errno == EINTR }
        if ready == 0 { return true }
        var buffer = [UInt8](repeating: 0, count: 65536)
        return recv(connection, &buffer, buffer.count, 0) > 0
    }

    /// A socket connecting to `address` without waiting for the connection.
    private static func startConnecting(to address: sockaddr_in) -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        var address = address
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return descriptor
    }
}
