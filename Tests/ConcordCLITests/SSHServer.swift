import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real OpenSSH server on a free port of 127.0.0.1, with a host key and an authorized user
/// key made for the test, and a home folder (for `HOME`) whose `~/.ssh` holds that user key.
/// Git commands run as the user running the tests. Stopped by its PID.
final class SSHServer {
    /// The server's own files.
    let folder: String
    /// The folder to give as `HOME`: `.ssh/id_ed25519` is the authorized key; `.ssh/known_hosts`
    /// starts empty (the host is unknown until ``trust(_:)``).
    let home: String
    let port: Int
    /// The host key's public line (`ssh-ed25519 AAAA…`).
    let hostKey: String
    private var process: ServerProcess
    /// The server's log (LogLevel VERBOSE: each connection and each session in it).
    var log: String { "\(folder)/sshd.log" }

    /// Makes the keys and starts `sshd` with files below `folder`; every session runs
    /// `forceCommand` instead of the command asked for, when given. The keys let in are those of
    /// `authorizedKeys` when given (a file another program writes, as gitolite does), else the
    /// home's key. With `forwarding`, it forwards TCP connections (a jump host for `ProxyJump`).
    init(in folder: String, forceCommand: String? = nil, authorizedKeys: String? = nil, forwarding: Bool = false) throws {
        self.folder = folder
        home = "\(folder)/home"
        try FileManager.default.createDirectory(atPath: "\(home)/.ssh", withIntermediateDirectories: true)
        try SSHServer.makeKey("\(folder)/host_key")
        try SSHServer.makeKey("\(home)/.ssh/id_ed25519")
        hostKey = try SSHServer.publicLine("\(folder)/host_key")
        try (SSHServer.publicLine("\(home)/.ssh/id_ed25519") + "\n").write(toFile: "\(folder)/authorized_keys", atomically: true, encoding: .utf8)
        _ = FileManager.default.createFile(atPath: "\(home)/.ssh/known_hosts", contents: Data())
        // sshd refuses to start without its privilege separation folder.
        try? FileManager.default.createDirectory(atPath: "/run/sshd", withIntermediateDirectories: true)
        let port = try ServerProcess.freePort()
        self.port = port
        // SHLVL set: bash, the user's shell that runs each command, then does not read ~/.bashrc
        // as the first shell of an ssh session does (root's here starts pyenv, 80 ms a session).
        let config = """
            Port \(port)
            ListenAddress 127.0.0.1
            HostKey \(folder)/host_key
            AuthorizedKeysFile \(authorizedKeys ?? "\(folder)/authorized_keys")
            PidFile none
            UsePAM no
            StrictModes no
            PasswordAuthentication no
            KbdInteractiveAuthentication no
            PermitRootLogin prohibit-password
            AllowTcpForwarding \(forwarding ? "local" : "no")
            X11Forwarding no
            LogLevel VERBOSE
            SetEnv SHLVL=1
            """ + (forceCommand.map { "\nForceCommand \($0)" } ?? "")
        try config.write(toFile: "\(folder)/sshd_config", atomically: true, encoding: .utf8)
        process = try SSHServer.start(in: folder, port: port)
    }

    private static func start(in folder: String, port: Int) throws -> ServerProcess {
        let process = try ServerProcess(["/usr/sbin/sshd", "-D", "-e", "-f", "\(folder)/sshd_config"], log: "\(folder)/sshd.log")
        try process.wait(until: { ServerProcess.canConnect(port) }, what: "sshd (see \(folder)/sshd.log)")
        return process
    }

    /// Stops the server and every connection it serves, waits `pause` seconds, and starts it
    /// again on the same port with the same keys: as a machine restarted.
    func restart(after pause: Double) throws {
        stop()
        usleep(UInt32(pause * 1_000_000))
        process = try SSHServer.start(in: folder, port: port)
    }

    /// The connections and sessions the log shows from line `start` on (the log's line count
    /// before what is counted): for each connection that authenticated, by its client port in
    /// the order they came, the sessions (commands run) it carried.
    func connections(fromLine start: Int = 0) -> [(port: String, sessions: Int)] {
        var connections: [(port: String, sessions: Int)] = []
        for line in logLines.dropFirst(start) {
            let words = line.split(separator: " ")
            guard let at = words.firstIndex(of: "port"), at + 1 < words.count else { continue }
            let port = String(words[at + 1])
            if line.hasPrefix("Accepted publickey for ") {
                connections.append((port, 0))
            } else if line.hasPrefix("Starting session: "), let index = connections.firstIndex(where: { $0.port == port }) {
                connections[index].sessions += 1
            }
        }
        return connections
    }

    /// The log's lines so far.
    var logLines: [String] {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(whereSeparator: \.isNewline).map(String.init)
    }

    /// The `ssh://` URL of a repository at the absolute path `path` on the server.
    func url(_ path: String, user: String? = nil) -> String {
        "ssh://\(user.map { "\($0)@" } ?? "")127.0.0.1:\(port)\(path)"
    }

    /// How a known_hosts line names the server.
    enum Name {
        /// `[127.0.0.1]:port`, as OpenSSH writes it for a port other than 22.
        case withPort
        /// `127.0.0.1` alone: the name of the host on port 22, not of this server.
        case withoutPort
        /// `[127.0.0.1]:port`, hashed (`|1|salt|hash`), as `ssh-keygen -H` writes it.
        case hashed
    }

    /// Adds the server's key to `~/.ssh/known_hosts` under `name`.
    func trust(_ name: Name = .withPort) throws {
        let host = name == .withoutPort ? "127.0.0.1" : "[127.0.0.1]:\(port)"
        try append("\(host) \(hostKey)\n", to: "\(home)/.ssh/known_hosts")
        if name == .hashed {
            try runTool("/usr/bin/ssh-keygen", ["-H", "-f", "\(home)/.ssh/known_hosts"])
        }
    }

    /// Makes `~/.ssh/known_hosts` list another key for the server, as if its key had changed.
    func trustAnotherKey() throws {
        try SSHServer.makeKey("\(folder)/impostor_key")
        try "[127.0.0.1]:\(port) \(SSHServer.publicLine("\(folder)/impostor_key"))\n"
            .write(toFile: "\(home)/.ssh/known_hosts", atomically: true, encoding: .utf8)
    }

    /// Stops the server and the processes serving its connections (its children, found before
    /// it stops: they outlive it otherwise, and so would the clients' kept connections), with
    /// SIGTERM: each closes its connection, and the commands it runs end on their own (a shell
    /// killed at start-up can leave the lock of its profile's scripts behind).
    func stop() {
        let text = (try? String(contentsOfFile: "/proc/\(process.pid)/task/\(process.pid)/children", encoding: .utf8)) ?? ""
        let serving = text.split(separator: " ").compactMap { pid_t($0) }
        process.stop()
        for pid in serving { kill(pid, SIGTERM) }
    }

    /// Makes an ed25519 key pair without passphrase at `path` and `path.pub`.
    static func makeKey(_ path: String) throws {
        try runTool("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "concord-test", "-f", path])
    }

    /// `type base64` of the public key beside the private key `path`.
    static func publicLine(_ path: String) throws -> String {
        let text = try String(contentsOfFile: path + ".pub", encoding: .utf8)
        return text.split(separator: " ").prefix(2).joined(separator: " ")
    }

    private func append(_ line: String, to file: String) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(line.utf8))
    }
}

/// A real ssh-agent listening on a socket of the test's own, stopped by its PID.
final class SSHAgent {
    /// The socket, for `SSH_AUTH_SOCK`.
    let socket: String
    private let process: ServerProcess

    /// Starts an agent holding the private key `key`.
    init(in folder: String, holding key: String) throws {
        let socket = "\(folder)/agent.sock"
        self.socket = socket
        process = try ServerProcess(["/usr/bin/ssh-agent", "-D", "-a", socket])
        try process.wait(until: { FileManager.default.fileExists(atPath: socket) }, what: "ssh-agent")
        try runTool("/usr/bin/ssh-add", ["-q", key], environment: ["SSH_AUTH_SOCK": socket])
    }

    func stop() { process.stop() }
}
