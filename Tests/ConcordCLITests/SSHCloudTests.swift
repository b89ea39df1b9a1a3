import Foundation
import Testing

/// Clouds over ssh, against a real sshd started for each test.
@Suite struct SSHCloudTests {
    /// A CLI fixture whose runs use the server's home folder, and a bare repository `cloud.git`.
    private func fixture() throws -> (cli: CLI, server: SSHServer, url: String) {
        var cli = try CLI()
        let server = try SSHServer(in: "\(cli.folder)/sshd")
        cli.environment = CloudTesting.environment(home: server.home)
        try CloudTesting.makeBare("\(cli.folder)/cloud.git")
        return (cli, server, server.url("\(cli.folder)/cloud.git"))
    }

    @Test func devicesConflictAndResolveOverSSHWithAKeyFile() throws {
        let (cli, server, url) = try fixture()
        defer { server.stop(); cli.remove() }
        try server.trust()
        try cli.ok(["init", "a", "--device", "A", "--remote", url])
        try cli.ok(["clone", url, "b", "--device", "B"])
        try cli.diverge("note.txt", base: "base\n", a: "from a\n", b: "from b\n")
        try cli.ok(["-C", "a", "sync"])
        for device in ["a", "b"] {
            let conflicts = try cli.json(["-C", device, "conflicts", "--json"])
            #expect(conflicts.count == 1 && conflicts.first?["document"] as? String == "note.txt", "\(device)")
        }
        try cli.ok(["-C", "b", "resolve", "note.txt", "--latest"])
        try cli.ok(["-C", "b", "sync"])
        try cli.ok(["-C", "a", "sync"])
        #expect(try cli.json(["-C", "a", "conflicts", "--json"]).isEmpty)
        #expect(try cli.tree("a") == cli.tree("b"))
        #expect(try cli.git(["config", "remote.origin.url"], in: "b") == url)
    }

    /// A name saved as a file on one device and as a folder of notes on the other, over ssh:
    /// the folder keeps the name on both devices, the file waits in contention, and keeping
    /// both brings it back beside the folder, named after its device.
    @Test func aFileAndAFolderOfOneNameConflictOverSSHAndBothAreKept() throws {
        let (cli, server, url) = try fixture()
        defer { server.stop(); cli.remove() }
        try server.trust()
        try cli.ok(["init", "a", "--device", "A", "--remote", url])
        try cli.ok(["clone", url, "b", "--device", "B"])
        // The folder first, so the file is the later version: the folder keeps the name all the same.
        try cli.write("b/todo/monday.md", "dentist\n")
        try cli.ok(["-C", "b", "save", "--all"])
        try cli.ok(["-C", "a", "save", "todo"], input: "call the bank\n")
        try cli.ok(["-C", "a", "sync"])
        try cli.ok(["-C", "b", "sync"])
        try cli.ok(["-C", "a", "sync"])
        for device in ["a", "b"] {
            let conflicts = try cli.json(["-C", device, "conflicts", "--json"])
            #expect(conflicts.compactMap { $0["document"] as? String } == ["todo"], "\(device)")
            #expect(cli.file("\(device)/todo/monday.md") == "dentist\n", "\(device)")
        }
        #expect(try cli.tree("a") == cli.tree("b"))
        try cli.ok(["-C", "b", "resolve", "todo", "--keep-both"])
        try cli.ok(["-C", "b", "sync"])
        try cli.ok(["-C", "a", "sync"])
        #expect(cli.file("a/todo (A)") == "call the bank\n")
        #expect(cli.file("a/todo/monday.md") == "dentist\n")
        #expect(try cli.json(["-C", "a", "conflicts", "--json"]).isEmpty)
        #expect(try cli.tree("a") == cli.tree("b"))
    }

    /// `.concordignore` travels over ssh like any document: a device that joins later leaves
    /// out the same files, for the same rules, and saves the same re-included one.
    @Test func twoDevicesOverSSHAgreeOnTheIgnoreRules() throws {
        let (cli, server, url) = try fixture()
        defer { server.stop(); cli.remove() }
        try server.trust()
        try cli.ok(["init", "a", "--device", "A", "--remote", url])
        try cli.write("a/.concordignore", "cache/\n*.log\n!keep.tmp\n")
        for file in ["cache/x.bin", "app.log", "keep.tmp", ".note.md.swp", "note.md"] { try cli.write("a/\(file)", "from a\n") }
        try cli.ok(["-C", "a", "save", "--all"])
        try cli.ok(["-C", "a", "sync"])
        try cli.ok(["clone", url, "b", "--device", "B"])
        for file in ["cache/y.bin", "app.log", ".note.md.swp"] { try cli.write("b/\(file)", "from b\n") }
        try cli.write("b/keep.tmp", "edited on b\n")
        try cli.ok(["-C", "b", "save", "--all"])
        try cli.ok(["-C", "b", "sync"])
        try cli.ok(["-C", "a", "sync"])
        #expect(try cli.tree("a") == cli.tree("b"))
        #expect(cli.file("a/keep.tmp") == "edited on b\n")
        for device in ["a", "b"] {
            let documents = try cli.json(["-C", device, "ls", "--json"]).compactMap { $0["document"] as? String }
            #expect(documents == [".concordignore", "keep.tmp", "note.md"], "\(device)")
            let ignored = try cli.json(["-C", device, "ls", "--ignored", "--json"]).map { "\($0["path"] ?? "") \($0["source"] ?? "") \($0["line"] ?? "")" }
            #expect(ignored == [".note.md.swp built-in ", "app.log .concordignore 2", "cache .concordignore 1"], "\(device)")
        }
    }

    @Test func keysComeFromSSHAgent() throws {
        let (cli, server, url) = try fixture()
        defer { server.stop(); cli.remove() }
        try server.trust()
        let key = "\(server.folder)/agent_key"
        try FileManager.default.moveItem(atPath: "\(server.home)/.ssh/id_ed25519", toPath: key)
        try FileManager.default.moveItem(atPath: "\(server.home)/.ssh/id_ed25519.pub", toPath: key + ".pub")
        let refused = try cli.run(["clone", url, "b"])
        #expect(refused.status == 1 && refused.stderr.contains("authentication failed"), "\(refused.stderr)")
        let agent = try SSHAgent(in: server.folder, holding: key)
        defer { agent.stop() }
        let environment = ["SSH_AUTH_SOCK": agent.socket]
        #expect(try cli.run(["init", "a", "--remote", url], environment: environment).status == 0)
        #expect(try cli.run(["clone", url, "b"], environment: environment).status == 0)
        try cli.ok(["-C", "b", "save", "note.txt"], input: "from the agent\n")
        #expect(try cli.run(["-C", "b", "sync"], environment: environment).status == 0)
        #expect(try cli.run(["-C", "a", "sync"], environment: environment).status == 0)
        #expect(try cli.ok(["-C", "a", "show", "note.txt"]) == "from the agent\n")
    }

    /// A key file protected by a passphrase cannot be used without asking for it: it is skipped,
    /// and the refusal says so (load it into ssh-agent).
    @Test func aKeyProtectedByAPassphraseIsSkippedAndSaidSo() throws {
        let (cli, server, url) = try fixture()
        defer { server.stop(); cli.remove() }
        try server.trust()
        let key = "\(server.home)/.ssh/id_ed25519"
        try runTool("/usr/bin/ssh-keygen", ["-q", "-p", "-N", "a passphrase", "-P", "", "-f", key])
        let result = try cli.run(["clone", url, "b"])
        #expect(result.status == 1 && result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("authentication failed") && result.stderr.contains("\(key) (protected by a passphrase: load it into ssh-agent)"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(cli.folder)/b"))
    }

    @Test func anUnknownHostIsRefusedWithHowToTrustIt() throws {
        let (cli, server, url) = try fixture()
        defer { server.stop(); cli.remove() }
        for arguments in [["init", "a", "--remote", url], ["clone", url, "b"]] {
            let result = try cli.run(arguments)
            #expect(result.status == 1)
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            #expect(result.stderr.contains("host key refused for the cloud \(url)"), "\(result.stderr)")
            #expect(result.stderr.contains("ssh-keyscan -p \(server.port) -t ssh-ed25519 127.0.0.1"), "\(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: "\(cli.folder)/a"))
        #expect(!FileManager.default.fileExists(atPath: "\(cli.folder)/b"))
        #expect(CloudTesting.main(ofBare: "\(cli.folder)/cloud.git").isEmpty)
    }

    /// Host keys are OpenSSH's to check, with its rules: a key listed for the address alone
    /// (`127.0.0.1`, as for port 22) is the server's key, and OpenSSH 9.2 accepts it on another
    /// port too (Concord's own reader of known_hosts, before OpenSSH's client, refused it).
    @Test func aKeyKnownForTheAddressAloneIsOpenSSHsToJudge() throws {
        let (cli, server, url) = try fixture()
        defer { server.stop(); cli.remove() }
        try server.trust(.withoutPort)
        try cli.ok(["init", "a", "--remote", url])
        #expect(try String(contentsOfFile: "\(server.home)/.ssh/known_hosts", encoding: .utf8) == "127.0.0.1 \(server.hostKey)\n")
    }

    @Test func hashedKnownHostsEntriesAreRead() throws {
        let (cli, server, url) = try fixture()
        defer { server.stop(); cli.remove() }
        try server.trust(.hashed)
        let known = try String(contentsOfFile: "\(server.home)/.ssh/known_hosts", encoding: .utf8)
        #expect(known.hasPrefix("|1|") && !known.contains("127.0.0.1"))
        try cli.ok(["init", "a", "--remote", url])
        try cli.ok(["clone", url, "b"])
    }

    @Test func aChangedHostKeyIsRefusedLoudly() throws {
        let (cli, server, url) = try fixture()
        defer { server.stop(); cli.remove() }
        try server.trust()
        try cli.ok(["init", "a", "--remote", url])
        try cli.ok(["-C", "a", "save", "note.txt"], input: "kept\n")
        let before = try cli.git(["rev-parse", "main"], in: "a")
        try server.trustAnotherKey()
        let clone = try cli.run(["clone", url, "b"])
        #expect(clone.status == 1 && clone.stderr.contains("HOST KEY OF [127.0.0.1]:\(server.port) HAS CHANGED"), "\(clone.stderr)")
        #expect(clone.stderr.contains("host key refused") && clone.stderr.split(separator: "\n").count == 1)
        #expect(!FileManager.default.fileExists(atPath: "\(cli.folder)/b"))
        let sync = try cli.run(["-C", "a", "sync"])
        #expect(sync.status == 1 && sync.stderr.contains("HAS CHANGED"), "\(sync.stderr)")
        #expect(try cli.git(["rev-parse", "main"], in: "a") == before)
        #expect(try cli.json(["-C", "a", "versions", "note.txt", "--json"]).count == 1)
    }

    @Test func aRefusedKeyIsAnAuthenticationFailureAndChangesNothing() throws {
        let (cli, server, url) = try fixture()
        defer { server.stop(); cli.remove() }
        try server.trust()
        let stranger = "\(server.folder)/stranger_key"
        try SSHServer.makeKey(stranger)
        let refusedInit = try cli.run(["init", "a", "--remote", url], environment: ["CONCORD_SSH_KEY": stranger])
        #expect(refusedInit.status == 1 && refusedInit.stderr.contains("authentication failed for the cloud \(url)"), "\(refusedInit.stderr)")
        #expect(refusedInit.stderr.contains("refused \(stranger)") && refusedInit.stderr.split(separator: "\n").count == 1)
        #expect(!FileManager.default.fileExists(atPath: "\(cli.folder)/a"))
        try cli.ok(["init", "a", "--remote", url])
        let refusedClone = try cli.run(["clone", url, "b"], environment: ["CONCORD_SSH_KEY": stranger])
        #expect(refusedClone.status == 1 && refusedClone.stderr.contains("authentication failed"))
        #expect(!FileManager.default.fileExists(atPath: "\(cli.folder)/b"))
        try cli.ok(["-C", "a", "save", "note.txt"], input: "waits\n")
        let before = try cli.git(["rev-parse", "main"], in: "a"), cloud = CloudTesting.main(ofBare: "\(cli.folder)/cloud.git")
        let refusedSync = try cli.run(["-C", "a", "sync"], environment: ["CONCORD_SSH_KEY": stranger])
        #expect(refusedSync.status == 1 && refusedSync.stderr.contains("authentication failed"))
        #expect(try cli.git(["rev-parse", "main"], in: "a") == before)
        #expect(CloudTesting.main(ofBare: "\(cli.folder)/cloud.git") == cloud)
        try cli.ok(["-C", "a", "sync"])
        #expect(CloudTesting.main(ofBare: "\(cli.folder)/cloud.git") == before)
    }
}
