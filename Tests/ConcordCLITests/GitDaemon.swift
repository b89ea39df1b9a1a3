import Foundation

/// A real `git daemon` on 127.0.0.1, started by the test and stopped by its PID.
final class GitDaemon {
    let port: Int
    private let process: ServerProcess

    /// Serves the repositories below `base` (read and write) on `port`, or a free one.
    init(base: String, port: Int? = nil) throws {
        let port = try port ?? ServerProcess.freePort()
        self.port = port
        process = try ServerProcess([
            "git", "daemon", "--export-all", "--enable=receive-pack", "--reuseaddr",
            "--base-path=\(base)", "--listen=127.0.0.1", "--port=\(port)", base,
        ])
        try process.wait(until: { ServerProcess.canConnect(port) }, what: "git daemon")
    }

    /// The URL of a repository served by the daemon.
    func url(_ name: String) -> String { "git://127.0.0.1:\(port)/\(name)" }

    /// Stops the daemon: SIGTERM, then SIGKILL after three seconds.
    func stop() { process.stop() }
}
