internal import CGit2
internal import FoundationEssentials
internal import Glibc
internal import Synchronization

/// One `ssh` child running a git service on the server: its standard input and output are the
/// stream libgit2 (and Concord's receive-pack) speaks over, its standard error what ssh says
/// when it fails.
///
/// Watched like a socket (``NetworkWatch``): the bytes read and written are its counters, a
/// child that makes no progress within the time-out, or sends more than the answer's limit
/// before any object, is killed (SIGKILL) and the read or write waiting on it fails with the
/// verdict. Its kept connection (`ControlMaster`) is then closed too, so that the next
/// operation connects anew rather than through a connection that stalled.
final class SSHProcess: Sendable, WatchedConnection {
    let destination: SSHDestination
    let client: SSHClient
    let operation: NetworkOperation
    private let pid: pid_t
    private let input: Int32
    private let output: Int32
    private let errors: Int32
    /// The arguments, to close the kept connection after a cut.
    private let arguments: [String]

    private struct State {
        var received: UInt64 = 0
        var sent: UInt64 = 0
        var progress = ConnectionProgress()
        var cut: NetworkOperation.Verdict?
        /// What ssh wrote on its standard error (the first 64 KiB).
        var stderr: [UInt8] = []
        var stderrOpen = true
        /// The wait status once reaped.
        var status: Int32?
        var closed = false
        var keptConnectionClosed = false
    }

    private let state = Mutex(State())

    /// The most of ssh's standard error kept.
    private static let stderrLimit = 64 << 10

    /// Starts `ssh` running `command` at `destination` as `client` says, watched as part of `operation`.
    /// - Throws: ``GitError`` when it cannot be started (`ssh` not installed).
    init(running command: String, at destination: SSHDestination, client: SSHClient, operation: NetworkOperation) throws(GitError) {
        let arguments = client.arguments(for: destination, command: command, timeout: operation.limits.timeout)
        (pid, input, output, errors) = try Self.spawn(arguments)
        self.destination = destination
        self.client = client
        self.arguments = arguments
        self.operation = operation
        NetworkWatch.add(self)
    }

    /// `host:port`, as messages name the other side.
    var peer: String { destination.peer }

    /// Starts `ssh` (found on `PATH`) with `arguments`, in a session of its own (no terminal to
    /// prompt on), with an empty signal mask and default handlers, and no descriptor of this
    /// process but the three sockets given as its standard input, output and error.
    /// - Returns: its process id and this side's ends of the three sockets.
    /// - Throws: ``GitError`` when it cannot be started (`ssh` not installed).
    private static func spawn(_ arguments: [String]) throws(GitError) -> (pid_t, Int32, Int32, Int32) {
        var ours: [Int32] = [], theirs: [Int32] = []
        defer { theirs.forEach { Glibc.close($0) } }
        for _ in 0..<3 {
            var pair: [Int32] = [-1, -1]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
                let reason = String(cString: strerror(errno))
                ours.forEach { Glibc.close($0) }
                throw GitError(errorClass: .os, message: "cannot make a socket pair for ssh: \(reason)", function: "socketpair")
            }
            ours.append(pair[0])
            theirs.append(pair[1])
        }
        let pid: pid_t
        do {
            pid = try ChildProcess.spawn("ssh", arguments, standard: theirs)
        } catch {
            ours.forEach { Glibc.close($0) }
            let reason = error.code == ENOENT ? "OpenSSH's client (ssh) is not installed" : error.reason
            throw GitError(errorClass: .ssh, message: "cannot run ssh: \(reason)", function: "posix_spawnp")
        }
        return (pid, ours[0], ours[1], ours[2])
    }

    /// Reads what ssh's standard output has, up to `length` bytes, collecting its standard error
    /// meanwhile.
    /// - Returns: the bytes read (0 at the end of a successful run), or a negative libgit2 code
    ///   with libgit2's error set: the watch's verdict, or what ssh said when it failed.
    func read(into buffer: UnsafeMutableRawPointer?, length: Int) -> Int {
        while true {
            if let failure = cutFailure() { return failure }
            guard wait(for: output, events: Int16(POLLIN)) else { continue }
            let count = recv(output, buffer, length, Int32(MSG_DONTWAIT))
            if count > 0 {
                state.withLock { $0.received += UInt64(count) }
                if operation.countsAnswer, inspect(at: .now) != nil, let failure = cutFailure() { return failure }
                return count
            }
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            if let failure = cutFailure() { return failure }
            return finish()
        }
    }

    /// Writes all of `length` bytes to ssh's standard input.
    /// - Returns: 0, or a negative libgit2 code with libgit2's error set.
    func write(from buffer: UnsafeRawPointer?, length: Int) -> Int32 {
        var offset = 0
        while offset < length {
            if let failure = cutFailure() { return Int32(failure) }
            guard wait(for: input, events: Int16(POLLOUT)) else { continue }
            let count = send(input, buffer.map { $0 + offset }, length - offset, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            if count > 0 {
                offset += count
                state.withLock { $0.sent += UInt64(count) }
            } else if count < 0 && errno != EINTR && errno != EAGAIN {
                if let failure = cutFailure() { return Int32(failure) }
                return Int32(finish())
            }
        }
        return 0
    }

    /// Ends the run: closes ssh's standard input (the server's git sees its end), waits a few
    /// seconds for ssh to exit, kills it otherwise, and leaves the watch.
    func close() {
        let first = state.withLock { state -> Bool in
            defer { state.closed = true }
            return !state.closed
        }
        guard first else { return }
        shutdown(input, Int32(SHUT_WR))
        if reap(within: .seconds(2)) == nil {
            kill(pid, SIGKILL)
            _ = reap(within: nil)
        }
        NetworkWatch.remove(self)
        operation.noteClosed(ObjectIdentifier(self))
        for descriptor in [input, output, errors] { Glibc.close(descriptor) }
    }

    /// Kills ssh when it stalled or received too much before any object (see
    /// ``SocketStream/inspect(at:)``, the same rule over this child's bytes).
    /// - Returns: the verdict when this call cut it.
    @discardableResult
    func inspect(at now: ContinuousClock.Instant) -> NetworkOperation.Verdict? {
        state.withLock { state in
            guard !state.closed, state.cut == nil, state.status == nil else { return nil }
            let verdict = state.progress.verdict(
                received: state.received, moved: state.received &+ state.sent, at: now, in: operation, connection: ObjectIdentifier(self), peer: peer)
            guard let verdict else { return nil }
            state.cut = verdict
            kill(pid, SIGKILL)
            operation.record(verdict)
            return verdict
        }
    }

    // MARK: Failures

    /// When the watch cut this run: libgit2's error set to the verdict, the kept connection
    /// closed, and `GIT_ERROR` (-1); else nil.
    private func cutFailure() -> Int? {
        guard let cut = state.withLock({ $0.cut }) else { return nil }
        closeKeptConnection()
        git_error_set_str(Int32(GIT_ERROR_NET.rawValue), NetworkOperation.message(for: cut, limits: operation.limits))
        return -1
    }

    /// The end of ssh's output: 0 when ssh exited successfully, else the failure ssh reported.
    private func finish() -> Int {
        let status =
            reap(within: .seconds(operation.limits.timeout))
            ?? {
                kill(pid, SIGKILL)
                return reap(within: nil) ?? -1
            }()
        if status == 0 { return 0 }
        let text = state.withLock { String(decoding: $0.stderr, as: UTF8.self) }
        let failure = SSHFailure(stderr: text, exitStatus: status, destination: destination, client: client)
        if let timeout = failure.timeout {
            operation.record(timeout)
            git_error_set_str(Int32(GIT_ERROR_NET.rawValue), NetworkOperation.message(for: timeout, limits: operation.limits))
            return -1
        }
        git_error_set_str(Int32(failure.errorClass.rawValue), failure.message)
        return Int(failure.code)
    }

    /// Waits until `descriptor` is ready for `events` (or hung up), reading ssh's standard error
    /// meanwhile; false after a tick without it, so that the caller looks at the verdict again.
    private func wait(for descriptor: Int32, events: Int16) -> Bool {
        let stderrOpen = state.withLock { $0.stderrOpen }
        var requests = [pollfd(fd: descriptor, events: events, revents: 0), pollfd(fd: stderrOpen ? errors : -1, events: Int16(POLLIN), revents: 0)]
        let ready = poll(&requests, 2, Int32(NetworkWatch.tick / .milliseconds(1)))
        guard ready > 0 else { return false }
        if requests[1].revents != 0 { drainErrors() }
        return requests[0].revents != 0
    }

    /// Reads what ssh's standard error holds now, without waiting.
    private func drainErrors() {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(errors, &chunk, chunk.count, Int32(MSG_DONTWAIT))
            if count > 0 {
                state.withLock { state in
                    let room = max(0, Self.stderrLimit - state.stderr.count)
                    state.stderr += chunk.prefix(min(room, count))
                }
                continue
            }
            if count == 0 { state.withLock { $0.stderrOpen = false } }
            return
        }
    }

    /// Waits for ssh to exit, up to `limit` (nil: for good), reading its standard error.
    /// - Returns: its exit status (128 + the signal when a signal ended it), nil when it still runs.
    private func reap(within limit: Duration?) -> Int32? {
        if let status = state.withLock({ $0.status }) { return status }
        let deadline = limit.map { ContinuousClock.now + $0 }
        while true {
            drainErrors()
            var status: Int32 = 0
            let reaped = waitpid(pid, &status, deadline == nil ? 0 : WNOHANG)
            if reaped == pid {
                drainErrors()
                let code = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
                state.withLock { $0.status = code }
                return code
            }
            if reaped < 0 && errno != EINTR { return -1 }
            if let deadline, ContinuousClock.now >= deadline { return nil }
            usleep(10_000)
        }
    }

    /// Asks the kept connection this run went through, if any, to close (`ssh -O exit`), within
    /// two seconds.
    private func closeKeptConnection() {
        let first = state.withLock { state -> Bool in
            defer { state.keptConnectionClosed = true }
            return !state.keptConnectionClosed
        }
        guard first, arguments.contains(where: { $0.hasPrefix("ControlPath=\"") }), let separator = arguments.firstIndex(of: "--") else { return }
        let options = Array(arguments[..<separator]) + ["-O", "exit", "--", arguments[separator + 1]]
        guard let (stopper, input, output, errors) = try? Self.spawn(options) else { return }
        defer { for descriptor in [input, output, errors] { Glibc.close(descriptor) } }
        var status: Int32 = 0
        for _ in 0..<200 {
            if waitpid(stopper, &status, WNOHANG) != 0 { return }
            usleep(10_000)
        }
        kill(stopper, SIGKILL)
        waitpid(stopper, &status, 0)
    }
}
