import Foundation
import Testing

/// ssh through OpenSSH's own client, against a real sshd: one connection kept and shared by a
/// sync's fetch and push and by the agent's peeks (counted in sshd's log), reconnected after
/// the server restarts, `~/.ssh/config` honoured, an unknown host key refused with nothing
/// changed. `HOME` is the test's: the user's own ssh files are never read or written.
@Suite struct SSHConnectionTests {
    /// How long an edit may take to arrive: a guard against a hang, not a timing.
    private static let bound: Double = 30

    /// A CLI fixture whose runs use the server's home folder, a bare repository `cloud.git`, and
    /// a private folder for kept connections (`XDG_RUNTIME_DIR`), short enough for a socket's name.
    private func fixture(forwarding: Bool = false) throws -> (cli: CLI, server: SSHServer, url: String, runtime: String) {
        var cli = try CLI()
        let server = try SSHServer(in: "\(cli.folder)/sshd", forwarding: forwarding)
        let runtime = try Self.runtimeFolder()
        cli.environment = CloudTesting.environment(home: server.home, ["XDG_RUNTIME_DIR": runtime])
        try CloudTesting.makeBare("\(cli.folder)/cloud.git")
        return (cli, server, server.url("\(cli.folder)/cloud.git"), runtime)
    }

    /// A new folder `/tmp/ccr-…`, mode 0700.
    private static func runtimeFolder() throws -> String {
        let folder = "/tmp/ccr-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        return folder
    }

    @Test func aSyncFetchesAndPushesOverOneConnection() throws {
        let (cli, server, url, runtime) = try fixture()
        defer { server.stop(); cli.remove(); try? FileManager.default.removeItem(atPath: runtime) }
        try server.trust()
        try cli.ok(["init", "a", "--device", "A", "--remote", url])
        try cli.ok(["clone", url, "b", "--device", "B"])
        try cli.ok(["-C", "b", "save", "note.txt"], input: "from B\n")
        try cli.ok(["-C", "b", "sync"])
        try cli.ok(["-C", "a", "save", "other.txt"], input: "from A\n")
        // A folder of its own for this sync: no connection kept by the commands before it.
        let fresh = try Self.runtimeFolder()
        defer { try? FileManager.default.removeItem(atPath: fresh) }
        let start = server.logLines.count
        let sync = try cli.run(["-C", "a", "sync", "--json"], environment: ["XDG_RUNTIME_DIR": fresh])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(cli.file("a/note.txt") == "from B\n")
        #expect(try runTool("/usr/bin/git", ["-C", "\(cli.folder)/cloud.git", "ls-tree", "--name-only", "main"]).contains("other.txt"))
        var connections = server.connections(fromLine: start)
        _ = eventually(5) {
            connections = server.connections(fromLine: start)
            return connections.first?.sessions == 2
        }
        #expect(connections.count == 1 && connections.first?.sessions == 2, "a fetch and a push over one connection: \(connections)")
    }

    @Test func theAgentPeeksAndSyncsOverOneKeptConnection() throws {
        let (cli, server, url, runtime) = try fixture()
        defer { server.stop(); cli.remove(); try? FileManager.default.removeItem(atPath: runtime) }
        try server.trust()
        try cli.ok(["init", "a", "--device", "A", "--remote", url])
        try cli.ok(["clone", url, "b", "--device", "B"])
        let start = server.logLines.count
        let own = try Self.runtimeFolder()
        defer { try? FileManager.default.removeItem(atPath: own) }
        let b = try WatchAgent(cli, device: "b", environment: ["XDG_RUNTIME_DIR": own])
        defer { b.stop() }
        b.waitFor("watching", seconds: Self.bound)
        // Several peeks, then an edit from A (a connection of A's own), which B's peek finds.
        #expect(eventually(Self.bound) { (server.connections(fromLine: start).first?.sessions ?? 0) >= 4 }, "\(server.connections(fromLine: start))")
        try cli.ok(["-C", "a", "save", "note.txt"], input: "from A\n")
        try cli.ok(["-C", "a", "sync"])
        cli.waitForFile("b/note.txt", "from A\n", seconds: Self.bound)
        b.waitFor("received", "note.txt", seconds: Self.bound)
        // B's agent's connection first; A's commands keep one of their own (made now, or by init).
        // sshd logs a session as it ends: on a loaded machine the last one is logged a moment later.
        var connections = server.connections(fromLine: start)
        _ = eventually(30) {
            connections = server.connections(fromLine: start)
            return (connections.first?.sessions ?? 0) >= 6
        }
        #expect(connections.count <= 2, "B's agent and A's commands, one connection each: \(connections)")
        #expect((connections.first?.sessions ?? 0) >= 6, "the first sync's fetch, the peeks and the sync's fetch: \(connections)")
        #expect(!b.events.contains { ["offline", "failed"].contains($0["event"] as? String) }, "\(b.events)")
        #expect(b.stop() == 0)
    }

    /// The server restarts (its connections cut, down for two seconds): the agent's peeks find it
    /// unreachable, then connect anew and bring the next edit; the new connection is kept.
    @Test func aKeptConnectionIsMadeAgainAfterTheServerRestarts() throws {
        let (cli, server, url, runtime) = try fixture()
        defer { server.stop(); cli.remove(); try? FileManager.default.removeItem(atPath: runtime) }
        try server.trust()
        try cli.ok(["init", "a", "--device", "A", "--remote", url])
        try cli.ok(["clone", url, "b", "--device", "B"])
        let b = try WatchAgent(cli, device: "b")
        defer { b.stop() }
        b.waitFor("watching", seconds: Self.bound)
        #expect(eventually(Self.bound) { (server.connections().last?.sessions ?? 0) >= 3 })
        try server.restart(after: 2)
        let start = server.logLines.count
        try cli.ok(["-C", "a", "save", "note.txt"], input: "after the restart\n")
        try cli.ok(["-C", "a", "sync"])
        cli.waitForFile("b/note.txt", "after the restart\n", seconds: 60)
        // A and B are one user on one server with the same keys: they share a kept connection,
        // or make one each when both connect at the same moment. B's next peeks use it.
        let connections = server.connections(fromLine: start)
        #expect((1...2).contains(connections.count), "A's sync and B's agent: \(connections)")
        let sessions = connections.map(\.sessions).reduce(0, +)
        #expect(eventually(Self.bound) { server.connections(fromLine: start).map(\.sessions).reduce(0, +) >= sessions + 3 })
        #expect(server.connections(fromLine: start).count == connections.count, "\(server.connections(fromLine: start))")
        #expect(!b.events.contains { $0["event"] as? String == "failed" }, "\(b.events)")
        #expect(b.stop() == 0)
    }

    /// A host alias of `~/.ssh/config` gives the address, port, user and key: the URL names the
    /// alias only, and no default key is there. An alias whose `User` does not exist is refused
    /// for that user (sshd's log names it).
    @Test func aHostAliasOfTheSSHConfigurationIsHonoured() throws {
        let (cli, server, _, runtime) = try fixture()
        defer { server.stop(); cli.remove(); try? FileManager.default.removeItem(atPath: runtime) }
        try server.trust()
        let key = "\(server.folder)/alias_key"
        try FileManager.default.moveItem(atPath: "\(server.home)/.ssh/id_ed25519", toPath: key)
        try FileManager.default.moveItem(atPath: "\(server.home)/.ssh/id_ed25519.pub", toPath: key + ".pub")
        let user = String(cString: getpwuid(getuid()).pointee.pw_name)
        let config = """
            Host concord-cloud concord-nobody
              HostName 127.0.0.1
              Port \(server.port)
              IdentityFile \(key)
            Host concord-cloud
              User \(user)
            Host concord-nobody
              User concord-nobody

            """
        try config.write(toFile: "\(server.home)/.ssh/config", atomically: true, encoding: .utf8)
        let url = "concord-cloud:\(cli.folder)/cloud.git"
        try cli.ok(["init", "a", "--device", "A", "--remote", url])
        try cli.ok(["-C", "a", "save", "note.txt"], input: "through the alias\n")
        try cli.ok(["-C", "a", "sync"])
        try cli.ok(["clone", url, "b", "--device", "B"])
        #expect(cli.file("b/note.txt") == "through the alias\n")
        #expect(server.logLines.contains { $0.hasPrefix("Accepted publickey for \(user) ") })
        let refused = try cli.run(["clone", "concord-nobody:\(cli.folder)/cloud.git", "c"])
        #expect(refused.status == 1 && refused.stderr.contains("authentication failed"), "\(refused.stderr)")
        #expect(server.logLines.contains { $0.contains("Invalid user concord-nobody") })
    }

    /// `ProxyJump` of `~/.ssh/config`: the cloud is reached through a jump host (the same sshd,
    /// forwarding), as a machine behind a bastion is; the jump's connection and the cloud's both
    /// show in sshd's log. (The jump's own ssh reads only the configuration, so the test's names
    /// its known_hosts and key there: the test's home is not the account's.)
    @Test func aCloudBehindAJumpHostIsReachedThroughIt() throws {
        let (cli, server, _, runtime) = try fixture(forwarding: true)
        defer { server.stop(); cli.remove(); try? FileManager.default.removeItem(atPath: runtime) }
        try server.trust()
        let user = String(cString: getpwuid(getuid()).pointee.pw_name)
        let config = """
            Host concord-jump concord-behind
              HostName 127.0.0.1
              Port \(server.port)
              User \(user)
              IdentityFile \(server.home)/.ssh/id_ed25519
              UserKnownHostsFile \(server.home)/.ssh/known_hosts
              BatchMode yes
            Host concord-behind
              ProxyJump concord-jump

            """
        try config.write(toFile: "\(server.home)/.ssh/config", atomically: true, encoding: .utf8)
        let url = "concord-behind:\(cli.folder)/cloud.git"
        let start = server.logLines.count
        try cli.ok(["init", "a", "--device", "A", "--remote", url])
        try cli.ok(["-C", "a", "save", "note.txt"], input: "through the jump host\n")
        try cli.ok(["-C", "a", "sync"])
        try cli.ok(["clone", url, "b", "--device", "B"])
        #expect(cli.file("b/note.txt") == "through the jump host\n")
        let accepted = server.logLines.dropFirst(start).filter { $0.hasPrefix("Accepted publickey for \(user) ") }
        #expect(accepted.count >= 2, "the jump host's connection and the cloud's through it: \(accepted)")
    }

    /// An unknown host key is refused in one line, before anything is sent: known_hosts is not
    /// written, no device is made, the cloud and a device made while the key was trusted keep
    /// what they hold.
    @Test func anUnknownHostKeyIsRefusedInOneLineWithNothingChanged() throws {
        let (cli, server, url, runtime) = try fixture()
        defer { server.stop(); cli.remove(); try? FileManager.default.removeItem(atPath: runtime) }
        try server.trust()
        try cli.ok(["init", "a", "--device", "A", "--remote", url])
        try cli.ok(["-C", "a", "save", "note.txt"], input: "waits\n")
        try "".write(toFile: "\(server.home)/.ssh/known_hosts", atomically: true, encoding: .utf8)
        let before = try cli.git(["rev-parse", "main"], in: "a"), cloud = CloudTesting.main(ofBare: "\(cli.folder)/cloud.git")
        let sshFiles = try FileManager.default.contentsOfDirectory(atPath: "\(server.home)/.ssh").sorted()
        for arguments in [["-C", "a", "sync"], ["clone", url, "b"]] {
            let result = try cli.run(arguments)
            #expect(result.status == 1, "\(arguments)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            #expect(result.stderr.contains("host key refused for the cloud \(url): [127.0.0.1]:\(server.port) is not a known host"), "\(result.stderr)")
        }
        #expect(try String(contentsOfFile: "\(server.home)/.ssh/known_hosts", encoding: .utf8).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(server.home)/.ssh").sorted() == sshFiles)
        #expect(!FileManager.default.fileExists(atPath: "\(cli.folder)/b"))
        #expect(try cli.git(["rev-parse", "main"], in: "a") == before)
        #expect(CloudTesting.main(ofBare: "\(cli.folder)/cloud.git") == cloud)
    }
}
