internal import CGit2
internal import FoundationEssentials
internal import Glibc
internal import Dispatch
internal import Synchronization

/// A connection libgit2 opened through Concord: the stream registered for `GIT_STREAM_STANDARD`,
/// which libgit2 uses for every plain socket it opens: `git://`, http and https (mbedTLS's
/// stream runs over it). ssh is OpenSSH's client's own connection (``SSHProcess``).
///
/// Connecting is bounded by the operation's ``NetworkLimits/timeout``: the name is resolved on a
/// thread of its own (`getaddrinfo` cannot be interrupted), each address is connected without
/// blocking and waited for with `poll`. Once connected, the socket blocks, and ``NetworkWatch``
/// watches it from the kernel's byte counters of the socket, which count what mbedTLS reads and
/// writes on it as well. A cut (`shutdown`) makes whichever library waits on the socket fail at
/// once.
///
/// A connection opened for an operation on a kept transport (``NetworkOperation/keptSockets``)
/// outlives it: each later operation on that transport takes it over (``attach(to:)``), and
/// between operations it is not watched (``detach()``).
final class SocketStream: Sendable, WatchedConnection {
    let host: String
    let port: String

    private struct State {
        var descriptor: Int32 = -1
        var cut: NetworkOperation.Verdict?
        /// The operation the connection serves: the one that opened it, then each that took it over.
        var operation: NetworkOperation
        /// Its progress in that operation, counted in bytes received and acknowledged since it
        /// took the connection over (the kernel's counters less those below).
        var progress = ConnectionProgress()
        var receivedBefore: UInt64 = 0
        var movedBefore: UInt64 = 0
    }

    private let state: Mutex<State>

    init(host: String, port: String, operation: NetworkOperation) {
        self.host = host
        self.port = port
        state = Mutex(State(operation: operation))
    }

    /// The operation the connection serves now.
    var operation: NetworkOperation { state.withLock { $0.operation } }

    /// True while the socket is connected and neither side closed it nor did the watch cut it: a
    /// kept connection that may carry the next operation.
    var isOpen: Bool {
        state.withLock { Self.isOpen($0) }
    }

    /// Makes the open connection serve `operation` from now: the answer's limit and the
    /// time-out count from now, and the watch looks at it again.
    /// - Returns: false, changing nothing, when it is not open (``isOpen``).
    func attach(to operation: NetworkOperation) -> Bool {
        let open = state.withLock { state -> Bool in
            guard Self.isOpen(state) else { return false }
            var received: UInt64 = 0, acknowledged: UInt64 = 0
            _ = concord_tcp_bytes(state.descriptor, &received, &acknowledged)
            state.operation = operation
            state.receivedBefore = received
            state.movedBefore = received &+ acknowledged
            state.progress.restart()
            return true
        }
        if open { NetworkWatch.add(self) }
        return open
    }

    /// True while `state`'s socket is connected, not cut, and not closed by the other side.
    private static func isOpen(_ state: State) -> Bool {
        state.descriptor >= 0 && state.cut == nil && concord_socket_closed(state.descriptor) == 0
    }

    /// Takes the connection out of the watch until an operation takes it over again: idle
    /// between operations, it neither makes progress nor needs to.
    func detach() {
        NetworkWatch.remove(self)
    }

    /// `host:port`, as messages name the other side.
    var peer: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Registers the stream with libgit2, once, from ``Libgit2``.
    /// - Returns: libgit2's result.
    static func register() -> Int32 {
        var registration = git_stream_registration()
        registration.version = Int32(GIT_STREAM_VERSION)
        registration.`init` = streamInit
        return concord_git_stream_register_standard(&registration)
    }

    /// Resolves the host and connects to the first of its addresses that answers, all within
    /// the time-out.
    /// - Returns: the connected socket, or nil with libgit2's error set (and the operation's
    ///   verdict recorded when the time-out ran out).
    fileprivate func connect() -> Int32? {
        let operation = self.operation
        let deadline = ContinuousClock.now + .seconds(operation.limits.timeout)
        guard let (addresses, code) = Self.resolve(host: host, port: port, until: deadline) else {
            return fail(.unresolved(host: host))
        }
        guard code == 0, !addresses.isEmpty else {
            setError(GIT_ERROR_NET, "failed to resolve address for \(host): \(String(cString: gai_strerror(code)))")
            return nil
        }
        var lastError: Int32 = 0
        for address in addresses {
            switch Self.connect(to: address, until: deadline) {
            case let .connected(descriptor):
                state.withLock { state in
                    state.descriptor = descriptor
                    state.progress.restart()
                }
                NetworkWatch.add(self)
                operation.keptSockets?.add(self)
                return descriptor
            case let .failed(error):
                lastError = error
            case .timedOut:
                return fail(.notConnected(peer: peer))
            }
        }
        setError(GIT_ERROR_OS, "failed to connect to \(peer): \(String(cString: strerror(lastError)))")
        return nil
    }

    /// Reads what the socket has, up to `length` bytes.
    /// - Returns: the bytes read (0 at the end), or -1 with libgit2's error set.
    fileprivate func read(_ descriptor: Int32, into buffer: UnsafeMutableRawPointer?, length: Int) -> Int {
        let operation = self.operation
        var count: Int
        repeat { count = recv(descriptor, buffer, length, 0) } while count < 0 && errno == EINTR
        let error = errno
        if let cut = state.withLock({ $0.cut }) ?? (count > 0 && operation.countsAnswer ? inspect(at: .now) : nil) {
            setError(GIT_ERROR_NET, NetworkOperation.message(for: cut, limits: operation.limits))
            return -1
        }
        if count < 0 {
            setError(GIT_ERROR_NET, "error receiving socket data: \(String(cString: strerror(error)))")
        }
        return count
    }

    /// Sends up to `length` bytes.
    /// - Returns: the bytes sent, or -1 with libgit2's error set.
    fileprivate func write(_ descriptor: Int32, from buffer: UnsafeRawPointer?, length: Int) -> Int {
        let operation = self.operation
        var count: Int
        repeat { count = send(descriptor, buffer, length, Int32(MSG_NOSIGNAL)) } while count < 0 && errno == EINTR
        let error = errno
        if count < 0 {
            if let cut = state.withLock({ $0.cut }) {
                setError(GIT_ERROR_NET, NetworkOperation.message(for: cut, limits: operation.limits))
            } else {
                setError(GIT_ERROR_NET, "error sending data: \(String(cString: strerror(error)))")
            }
        }
        return count
    }

    /// Closes the socket and leaves the watch.
    fileprivate func close() {
        let closed = state.withLock { state -> Bool in
            guard state.descriptor >= 0 else { return false }
            Glibc.close(state.descriptor)
            state.descriptor = -1
            return true
        }
        if closed {
            NetworkWatch.remove(self)
            let operation = self.operation
            operation.noteClosed(ObjectIdentifier(self))
            operation.keptSockets?.remove(self)
        }
    }

    /// Reads the socket's counters and cuts the connection (`shutdown`) when the server sent
    /// more than the answer's limit before any object, or when the connection made no
    /// progress within the time-out: fewer than ``NetworkLimits/minimumProgress`` bytes moved
    /// either way, and libgit2 reported no progress (``NetworkOperation/lastProgressReport``).
    /// - Returns: the verdict when this call cut the connection.
    @discardableResult
    func inspect(at now: ContinuousClock.Instant) -> NetworkOperation.Verdict? {
        state.withLock { state in
            guard state.descriptor >= 0, state.cut == nil else { return nil }
            var received: UInt64 = 0, acknowledged: UInt64 = 0
            guard concord_tcp_bytes(state.descriptor, &received, &acknowledged) == 0 else { return nil }
            let verdict = state.progress.verdict(
                received: received &- state.receivedBefore, moved: received &+ acknowledged &- state.movedBefore, at: now, in: state.operation,
                connection: ObjectIdentifier(self), peer: peer)
            guard let verdict else { return nil }
            state.cut = verdict
            shutdown(state.descriptor, Int32(SHUT_RDWR))
            state.operation.record(verdict)
            return verdict
        }
    }

    private func fail(_ verdict: NetworkOperation.Verdict) -> Int32? {
        let operation = self.operation
        operation.record(verdict)
        setError(GIT_ERROR_NET, NetworkOperation.message(for: verdict, limits: operation.limits))
        return nil
    }

    private func setError(_ errorClass: git_error_t, _ message: String) {
        git_error_set_str(Int32(errorClass.rawValue), message)
    }

    // MARK: Resolving and connecting

    /// One address `getaddrinfo` gave, copied out of its list.
    private struct Address: Sendable {
        var family: Int32
        var type: Int32
        var protocolNumber: Int32
        var bytes: [UInt8]
    }

    /// What a resolution on its own thread hands back.
    private final class Resolution: Sendable {
        let finished = DispatchSemaphore(value: 0)
        let result = Mutex<(addresses: [Address], code: Int32)?>(nil)
    }

    /// The addresses of `host`, with `getaddrinfo`'s result code; nil when `deadline` passed
    /// first (the resolution then ends on its own, unwaited).
    private static func resolve(host: String, port: String, until deadline: ContinuousClock.Instant) -> (addresses: [Address], code: Int32)? {
        let resolution = Resolution()
        DetachedThread.start {
            var hints = addrinfo()
            hints.ai_family = AF_UNSPEC
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            var list: UnsafeMutablePointer<addrinfo>?
            let code = getaddrinfo(host, port, &hints, &list)
            var addresses: [Address] = []
            var next = code == 0 ? list : nil
            while let entry = next {
                if let address = entry.pointee.ai_addr {
                    let bytes = Array(UnsafeRawBufferPointer(start: address, count: Int(entry.pointee.ai_addrlen)))
                    addresses.append(
                        Address(family: entry.pointee.ai_family, type: entry.pointee.ai_socktype, protocolNumber: entry.pointee.ai_protocol, bytes: bytes))
                }
                next = entry.pointee.ai_next
            }
            if code == 0 { freeaddrinfo(list) }
            resolution.result.withLock { $0 = (addresses, code) }
            resolution.finished.signal()
        }
        guard resolution.finished.wait(timeout: dispatchTime(deadline)) == .success else { return nil }
        return resolution.result.withLock { $0 }
    }

    private enum Connection {
        case connected(Int32)
        case failed(errno: Int32)
        case timedOut
    }

    /// Connects a new socket to `address` without blocking, waiting for it until `deadline`;
    /// the socket blocks once connected.
    private static func connect(to address: Address, until deadline: ContinuousClock.Instant) -> Connection {
        let descriptor = socket(address.family, address.type | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), address.protocolNumber)
        guard descriptor >= 0 else { return .failed(errno: errno) }
        var result = address.bytes.withUnsafeBytes { bytes in
            Glibc.connect(descriptor, bytes.baseAddress?.assumingMemoryBound(to: sockaddr.self), socklen_t(bytes.count))
        }
        if result != 0 && errno == EINPROGRESS {
            var ready: Int32
            repeat {
                var request = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                ready = poll(&request, 1, milliseconds(until: deadline))
            } while ready < 0 && errno == EINTR
            if ready == 0 {
                Glibc.close(descriptor)
                return .timedOut
            }
            var problem: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            if ready < 0 || getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &problem, &length) != 0 {
                problem = errno
            }
            result = problem == 0 ? 0 : -1
            errno = problem
        }
        guard result == 0 else {
            let error = errno
            Glibc.close(descriptor)
            return .failed(errno: error)
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        // mbedTLS and libgit2 write a handshake's last records, and a request's headers and
        // body, in separate small writes: with Nagle's algorithm each later one waited for the
        // server's delayed acknowledgement, 40 ms apiece (half an https sync's time). git's
        // transport (curl) turns it off too.
        var on: Int32 = 1
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        return .connected(descriptor)
    }

    private static func milliseconds(until deadline: ContinuousClock.Instant) -> Int32 {
        let left = deadline - .now
        guard left > .zero else { return 0 }
        return Int32(min(Double(Int32.max), (left / .milliseconds(1)).rounded(.up)))
    }

    private static func dispatchTime(_ deadline: ContinuousClock.Instant) -> DispatchTime {
        .now() + .milliseconds(Int(milliseconds(until: deadline)))
    }
}

/// The `concord_socket_stream` behind a `git_stream` libgit2 hands back.
private func socketStream(_ stream: UnsafeMutablePointer<git_stream>?) -> UnsafeMutablePointer<concord_socket_stream>? {
    stream.map { UnsafeMutableRawPointer($0).assumingMemoryBound(to: concord_socket_stream.self) }
}

/// The ``SocketStream`` a `concord_socket_stream` belongs to.
private func owner(_ stream: UnsafeMutablePointer<concord_socket_stream>) -> SocketStream? {
    stream.pointee.owner.map { Unmanaged<SocketStream>.fromOpaque($0).takeUnretainedValue() }
}

private let streamInit: @convention(c) (UnsafeMutablePointer<UnsafeMutablePointer<git_stream>?>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Int32 = {
    out, host, port in
    guard let out, let host, let port else {
        git_error_set_str(Int32(GIT_ERROR_NET.rawValue), "a stream needs a host and a port")
        return -1
    }
    let owner = SocketStream(
        host: String(cString: host), port: String(cString: port), operation: NetworkOperation.current ?? NetworkOperation(limits: NetworkLimits()))
    let stream = UnsafeMutablePointer<concord_socket_stream>.allocate(capacity: 1)
    stream.initialize(to: concord_socket_stream())
    stream.pointee.parent.version = Int32(GIT_STREAM_VERSION)
    stream.pointee.parent.connect = streamConnect
    stream.pointee.parent.read = streamRead
    stream.pointee.parent.write = streamWrite
    stream.pointee.parent.close = streamClose
    stream.pointee.parent.free = streamFree
    stream.pointee.host = strdup(host)
    stream.pointee.port = strdup(port)
    stream.pointee.socket = -1
    stream.pointee.owner = Unmanaged.passRetained(owner).toOpaque()
    out.pointee = UnsafeMutableRawPointer(stream).assumingMemoryBound(to: git_stream.self)
    return 0
}

private let streamConnect: @convention(c) (UnsafeMutablePointer<git_stream>?) -> Int32 = { stream in
    guard let stream = socketStream(stream), let owner = owner(stream) else { return -1 }
    guard let descriptor = owner.connect() else { return -1 }
    stream.pointee.socket = descriptor
    return 0
}

private let streamRead: @convention(c) (UnsafeMutablePointer<git_stream>?, UnsafeMutableRawPointer?, Int) -> Int = { stream, buffer, length in
    guard let stream = socketStream(stream), let owner = owner(stream) else { return -1 }
    return owner.read(stream.pointee.socket, into: buffer, length: length)
}

private let streamWrite: @convention(c) (UnsafeMutablePointer<git_stream>?, UnsafePointer<CChar>?, Int, Int32) -> Int = { stream, buffer, length, _ in
    guard let stream = socketStream(stream), let owner = owner(stream) else { return -1 }
    return owner.write(stream.pointee.socket, from: buffer, length: length)
}

private let streamClose: @convention(c) (UnsafeMutablePointer<git_stream>?) -> Int32 = { stream in
    guard let stream = socketStream(stream) else { return 0 }
    owner(stream)?.close()
    stream.pointee.socket = -1
    return 0
}

private let streamFree: @convention(c) (UnsafeMutablePointer<git_stream>?) -> Void = { stream in
    guard let stream = socketStream(stream) else { return }
    if let opaque = stream.pointee.owner {
        let owner = Unmanaged<SocketStream>.fromOpaque(opaque)
        owner.takeUnretainedValue().close()
        owner.release()
    }
    free(stream.pointee.host)
    free(stream.pointee.port)
    stream.deinitialize(count: 1)
    stream.deallocate()
}
