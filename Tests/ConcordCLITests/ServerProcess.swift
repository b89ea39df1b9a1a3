import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A server a test starts and stops by its PID: `git daemon`, `sshd`, `lighttpd`, `ssh-agent`
/// (a ``ChildProcess`` stopped once, at the latest when the test drops it).
final class ServerProcess {
    private let child: ChildProcess
    private var stopped = false
    /// The server's process id.
    var pid: pid_t { child.pid }

    /// Starts `arguments[0]` (searched on PATH) with `environment` added to this process's,
    /// its output appended to `log` (or discarded).
    init(_ arguments: [String], environment: [String: String] = [:], log: String? = nil) throws {
        do {
            child = try ChildProcess(arguments, environment: environment, stdout: log ?? "/dev/null", stderr: log ?? "/dev/null")
        } catch {
            throw ServerError("cannot start \(arguments[0]): \(error)")
        }
    }

    deinit { stop() }

    /// Stops the server: SIGTERM, then SIGKILL after three seconds; waits for it.
    func stop() {
        guard !stopped else { return }
        stopped = true
        child.stop()
    }

    /// True while the server has not exited.
    var isRunning: Bool {
        var status: Int32 = 0
        return waitpid(pid, &status, WNOHANG) == 0
    }

    /// Waits until `ready` holds, for up to fifteen seconds (a loaded machine starts servers
    /// slowly); stops the server and throws otherwise, saying whether it exited.
    func wait(until ready: () -> Bool, what: String) throws {
        for _ in 0..<300 {
            if ready() { return }
            guard isRunning else {
                throw ServerError("\(what) did not start: it exited (its port taken meanwhile?)")
            }
            usleep(50_000)
        }
        stop()
        throw ServerError("\(what) did not start: not ready after 15 s")
    }

    /// A TCP port of 127.0.0.1 that nothing listens on now.
    static func freePort() throws -> Int { try ReservedPort().port }

    /// True when something accepts connections on `port` of 127.0.0.1.
    static func canConnect(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = socketAddress(port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    /// The address of `port` on 127.0.0.1 (0: any free port, to bind).
    static func socketAddress(_ port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}

/// A test server that could not be set up.
struct ServerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs a short-lived tool (ssh-keygen, openssl, git) to completion; throws with its output when it fails.
@discardableResult
func runTool(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let text = String(decoding: data, as: UTF8.self)
    guard process.terminationStatus == 0 else {
        throw ServerError("\(executable) \(arguments.joined(separator: " ")): \(text)")
    }
    return text
}

/// A port of 127.0.0.1 held bound but not listening: a connection to it is refused, and no other
/// server (another test's, running at the same time) can take it until it is released.
final class ReservedPort {
    /// The port.
    let port: Int
    private var descriptor: Int32

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard descriptor >= 0, bound == 0 else {
            if descriptor >= 0 { close(descriptor) }
            throw ServerError("cannot find a free port: errno \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        self.descriptor = descriptor
    }

    /// Lets a server bind the port.
    func release() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
    }

    deinit { release() }
}
