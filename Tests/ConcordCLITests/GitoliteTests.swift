import Foundation
import Testing

/// Concord on a shared git host with per-user rights: gitolite (Debian's gitolite3) over a real
/// sshd, each person with their own key, containers as repositories.
@Suite struct GitoliteTests {
    private static let rules = """
        repo notes
            RW+ = alice
            R   = bob
        """

    /// The fixture as `user` runs it: their home (key, known_hosts), nothing else of the caller's.
    private func person(_ cli: CLI, _ server: GitoliteServer, _ user: String) throws -> CLI {
        var person = cli
        person.environment = CloudTesting.environment(home: try server.home(for: user))
        return person
    }

    @Test func aReadOnlyDeviceReceivesSaysOnceThatItCannotSendAndSendsOnceAllowed() throws {
        let cli = try CLI()
        let server = try GitoliteServer(in: "\(cli.folder)/gitolite", users: ["alice", "bob"], rules: Self.rules)
        defer { server.stop(); cli.remove() }
        let alice = try person(cli, server, "alice"), bob = try person(cli, server, "bob")
        try alice.ok(["init", "a", "--device", "alice", "--remote", server.url("notes")])
        try alice.ok(["-C", "a", "save", "note.txt"], input: "one\n")
        try alice.ok(["-C", "a", "sync"])
        try bob.ok(["clone", server.url("notes"), "b", "--device", "bob"])
        #expect(bob.file("b/note.txt") == "one\n")

        try alice.ok(["-C", "a", "save", "note.txt"], input: "two\n")
        try alice.ok(["-C", "a", "sync"])
        try bob.ok(["-C", "b", "save", "idea.txt"], input: "from bob\n")
        let refused = try bob.run(["-C", "b", "sync"])

        #expect(refused.status == 1)
        let lines = refused.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("does not let this device write") && refused.stderr.contains("DENIED"), "\(refused.stderr)")
        #expect(refused.stderr.contains("keeps its 1 own"), "\(refused.stderr)")
        #expect(bob.file("b/note.txt") == "two\n", "the sync received alice's version")
        #expect(try bob.json(["-C", "b", "versions", "idea.txt", "--json"]).count == 1)

        // The agent: alice's edits arrive; the refusal is one line, not one a sync.
        let agent = try WatchAgent(bob, device: "b", arguments: ["--interval", "3600", "--peek-interval", "0.2"])
        defer { agent.stop() }
        agent.waitFor("failed")
        for text in ["three\n", "four\n"] {
            try alice.ok(["-C", "a", "save", "note.txt"], input: text)
            try alice.ok(["-C", "a", "sync"])
            #expect(eventually(60) { bob.file("b/note.txt") == text }, "\(agent.events)")
        }
        agent.waitFor("received", "note.txt")
        let failures = agent.events.filter { $0["event"] as? String == "failed" }
        #expect(failures.count == 1, "\(agent.events)")
        #expect((failures.first?["detail"] as? String)?.contains("does not let this device write") == true, "\(failures)")
        agent.stop()

        // Given write access, bob's waiting version goes up with the next sync.
        try server.setRules(Self.rules.replacingOccurrences(of: "R   = bob", with: "RW+ = bob"))
        try bob.ok(["-C", "b", "sync"])
        try alice.ok(["-C", "a", "sync"])
        #expect(alice.file("a/idea.txt") == "from bob\n")
        #expect(try alice.tree("a") == bob.tree("b"))
    }

    @Test func someoneWithNoRightsIsRefusedAtCloneInOneLineWithNothingLeft() throws {
        let cli = try CLI()
        let server = try GitoliteServer(in: "\(cli.folder)/gitolite", users: ["alice", "carol"], rules: Self.rules)
        defer { server.stop(); cli.remove() }
        let alice = try person(cli, server, "alice"), carol = try person(cli, server, "carol")
        try alice.ok(["init", "a", "--device", "alice", "--remote", server.url("notes")])
        try alice.ok(["-C", "a", "save", "note.txt"], input: "private\n")
        try alice.ok(["-C", "a", "sync"])

        let refused = try carol.run(["clone", server.url("notes"), "c", "--device", "carol"])

        #expect(refused.status == 1)
        #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("DENIED"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(cli.folder)/c/note.txt"))
        #expect(!FileManager.default.fileExists(atPath: "\(cli.folder)/c/.git"), "nothing of a container left behind")
    }
}
