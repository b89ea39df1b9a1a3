import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real `git daemon` on 127.0.0.1, started by the test and stopped by its PID (see ``ChildProcess``).
final class GitDaemon {
    let port: Int
    private let process: ChildProcess

    /// Serves the repositories below `base` (read and write) on `port`, or a free one.
    init(base: String, port: Int? = nil) throws {
        self.port = try port ?? GitDaemon.freePort()
        let arguments = ["git", "daemon", "--export-all", "--enable=receive-pack", "--reuseaddr",
                         "--base-path=\(base)", "--listen=127.0.0.1", "--port=\(self.port)", base]
        process = try ChildProcess(arguments)
        try waitUntilListening()
    }

    /// The URL of a repository served by the daemon.
    func url(_ name: String) -> String { "git://127.0.0.1:\(port)/\(name)" }

    /// Stops the daemon: SIGTERM, then SIGKILL after three seconds.
    func stop() {
        process.stop()
    }

    private func waitUntilListening() throws {
        for _ in 0..<100 {
            if GitDaemon.canConnect(port) { return }
            usleep(50_000)
        }
        stop()
        throw NSError(domain: "GitDaemon", code: -1, userInfo: [NSLocalizedDescriptionKey: "git daemon did not start"])
    }

    private static func socketAddress(_ port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = socketAddress(0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw NSError(domain: "GitDaemon", code: Int(errno)) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func canConnect(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = socketAddress(port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}
