import Foundation

/// A shared git host as Debian's gitolite3 makes one: each person known by their ssh key,
/// containers as repositories, read and write rights from a `gitolite.conf`, served by a real
/// sshd of its own on 127.0.0.1 (every key runs `gitolite-shell` as its user). Stopped by its PID.
final class GitoliteServer {
    /// gitolite's home: its `repositories/`, `.gitolite/` and `.ssh/authorized_keys`.
    let host: String
    private let folder: String
    private let ssh: SSHServer

    /// Sets gitolite up for `users` (and an administrator) with `rules` (gitolite.conf's repo
    /// lines; a repository named there is made empty), then starts sshd.
    init(in folder: String, users: [String], rules: String) throws {
        self.folder = folder
        host = "\(folder)/host"
        try FileManager.default.createDirectory(atPath: "\(folder)/keys", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: host, withIntermediateDirectories: true)
        for user in ["admin"] + users { try SSHServer.makeKey("\(folder)/keys/\(user)") }
        try runTool("/usr/bin/gitolite", ["setup", "-pk", "\(folder)/keys/admin.pub"], environment: ["HOME": host])
        for user in users {
            try FileManager.default.copyItem(atPath: "\(folder)/keys/\(user).pub", toPath: "\(host)/.gitolite/keydir/\(user).pub")
        }
        try Self.configure(host: host, rules: rules)
        ssh = try SSHServer(in: "\(folder)/sshd", authorizedKeys: "\(host)/.ssh/authorized_keys")
    }

    /// Replaces the rights with `rules`, as an administrator pushing gitolite.conf would.
    func setRules(_ rules: String) throws {
        try Self.configure(host: host, rules: rules)
    }

    private static func configure(host: String, rules: String) throws {
        try ("repo gitolite-admin\n    RW+ = admin\n" + rules).write(toFile: "\(host)/.gitolite/conf/gitolite.conf", atomically: true, encoding: .utf8)
        try runTool("/usr/bin/gitolite", ["setup"], environment: ["HOME": host])
        // sshd gives each session the login user's HOME; gitolite-shell finds its own in HOME.
        let keys = "\(host)/.ssh/authorized_keys"
        let lines = try String(contentsOfFile: keys, encoding: .utf8)
            .replacingOccurrences(of: "command=\"/", with: "command=\"HOME=\(host) /")
        try lines.write(toFile: keys, atomically: true, encoding: .utf8)
    }

    /// A home folder for `user`'s device: their key as `~/.ssh/id_ed25519` and the server trusted.
    func home(for user: String) throws -> String {
        let home = "\(folder)/homes/\(user)"
        try FileManager.default.createDirectory(atPath: "\(home)/.ssh", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "\(folder)/keys/\(user)", toPath: "\(home)/.ssh/id_ed25519")
        try "[127.0.0.1]:\(ssh.port) \(ssh.hostKey)\n".write(toFile: "\(home)/.ssh/known_hosts", atomically: true, encoding: .utf8)
        return home
    }

    /// The URL of the repository `name` (gitolite names repositories, not paths).
    func url(_ name: String) -> String { ssh.url("/\(name)", user: NSUserName()) }

    func stop() { ssh.stop() }
}
