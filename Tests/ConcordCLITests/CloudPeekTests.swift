import Foundation
import Testing

/// The agent learns of a network cloud's changes between its periodic syncs by checking the
/// cloud's `main` (`concord watch --peek-interval`), against real servers on 127.0.0.1. The
/// periodic sync is an hour apart: what arrives was brought by the check.
@Suite struct CloudPeekTests {
    /// How long an edit may take to arrive: a guard against a hang, not a timing.
    private static let bound: Double = 20

    @Test func anEditArrivesOverGitDaemonLongBeforeThePeriodicSync() throws {
        let (cli, daemon) = try CloudTesting.daemonFixture()
        defer { cli.remove() }
        defer { daemon.stop() }
        try arrives(cli, url: daemon.url("cloud.git"))
    }

    @Test func anEditArrivesOverSSHLongBeforeThePeriodicSync() throws {
        var cli = try CLI()
        let server = try SSHServer(in: "\(cli.folder)/sshd")
        defer { server.stop(); cli.remove() }
        cli.environment = CloudTesting.environment(home: server.home)
        try server.trust()
        try CloudTesting.makeBare("\(cli.folder)/cloud.git")
        try arrives(cli, url: server.url("\(cli.folder)/cloud.git"))
    }

    @Test func anEditArrivesOverHTTPSLongBeforeThePeriodicSync() throws {
        let (cli, server) = try CloudTesting.httpsFixture()
        defer { server.stop(); cli.remove() }
        try arrives(cli, url: server.url("cloud.git", userInfo: "alice:s3cret-pass"))
    }

    /// Over https the agent's checks go over one connection it keeps: ten checks or more (each
    /// an answered request for upload-pack's advertisement in lighttpd's log, which names the
    /// connection by the client's port) over one connection, and three connections in all
    /// through the proxy in front of the server: B's clone, its agent's first sync, its checks.
    /// Seen failing with a connection for each check (one check a connection, 70 connections).
    @Test func anAgentsChecksOverHTTPSGoOverOneConnection() throws {
        let (cli, server) = try CloudTesting.httpsFixture()
        defer { server.stop(); cli.remove() }
        let proxy = try ConnectionProxy(to: server.port)
        defer { proxy.stop() }
        try cli.ok(["init", "a", "--device", "A", "--remote", server.url("cloud.git", userInfo: "alice:s3cret-pass")])
        try cli.ok(["clone", server.url("cloud.git", userInfo: "alice:s3cret-pass", port: proxy.port), "b", "--device", "B"])
        let b = try startAgent(cli, arguments: ["--interval", "3600", "--peek-interval", "0.2"])
        defer { b.stop() }
        var checks: [Int: Int] = [:]
        let carried = eventually(Self.bound) {
            let answered = server.accessLog().filter { $0.status == 200 && $0.isUploadPackAdvertisement }
            checks = Dictionary(grouping: answered, by: \.port).mapValues(\.count)
            return checks.values.contains { $0 >= 10 }
        }
        #expect(carried, "checks answered on each connection: \(checks)")
        #expect(proxy.accepted == 3, "\(proxy.accepted) connections; checks answered on each: \(checks)")
        #expect(!b.events.contains { ["offline", "failed"].contains($0["event"] as? String) }, "\(b.events)")
        #expect(b.stop() == 0)
    }

    /// The server restarts under an agent that keeps its connection: the agent opens a new one
    /// (at its next check, or after one failed check, offline once at most) and an edit still
    /// arrives. The whole agent's check: it passed with the check for a close, the retry and
    /// the new transport after a failure all taken out (libgit2's HTTP client connects again
    /// after a request that failed half-way, and one failed check is one offline line);
    /// `KeptConnectionTests.checksGoOnAfterTheServerRestarts` is the mechanism's.
    @Test func anAgentGoesOnOverHTTPSAfterTheServerRestarts() throws {
        let (cli, server) = try CloudTesting.httpsFixture()
        defer { server.stop(); cli.remove() }
        let url = server.url("cloud.git", userInfo: "alice:s3cret-pass")
        try cli.ok(["init", "a", "--device", "A", "--remote", url])
        try cli.ok(["clone", url, "b", "--device", "B"])
        let b = try startAgent(cli, arguments: ["--interval", "3600", "--peek-interval", "0.2"])
        defer { b.stop() }
        try cli.ok(["-C", "a", "save", "note.txt"], input: "one\n")
        try cli.ok(["-C", "a", "sync"])
        cli.waitForFile("b/note.txt", "one\n", seconds: Self.bound)
        try server.restart()
        try cli.ok(["-C", "a", "save", "note.txt"], input: "two\n")
        try cli.ok(["-C", "a", "sync"])
        cli.waitForFile("b/note.txt", "two\n", seconds: Self.bound)
        let offline = b.events.filter { $0["event"] as? String == "offline" }.count
        #expect(offline <= 1 && !b.events.contains { $0["event"] as? String == "failed" }, "\(b.events)")
        #expect(b.stop() == 0)
    }

    /// Without the check, the edit waits for the periodic sync: the check is what brings it.
    @Test func withTheCheckTurnedOffAnEditWaitsForThePeriodicSync() throws {
        let (cli, daemon) = try CloudTesting.daemonFixture()
        defer { cli.remove() }
        defer { daemon.stop() }
        let url = daemon.url("cloud.git")
        try cli.ok(["init", "a", "--device", "A", "--remote", url])
        try cli.ok(["clone", url, "b", "--device", "B"])
        let b = try startAgent(cli, arguments: ["--interval", "3600", "--peek-interval", "0"])
        defer { b.stop() }
        try cli.ok(["-C", "a", "save", "note.txt"], input: "from A\n")
        try cli.ok(["-C", "a", "sync"])
        #expect(!eventually(Self.bound) { cli.file("b/note.txt") != nil }, "arrived without the check: \(b.events)")
        #expect(b.documents("received").isEmpty)
        #expect(b.stop() == 0)
    }

    /// A check that cannot reach the cloud makes the agent offline, told once however many checks
    /// and retries fail; once the server is back the agent says so, and edits arrive again.
    @Test func aStoppedServerIsOfflineOnceAndTheAgentRecovers() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try CloudTesting.makeBare("\(cli.folder)/cloud.git")
        var daemon = try GitDaemon(base: cli.folder)
        defer { daemon.stop() }
        let url = daemon.url("cloud.git")
        try cli.ok(["init", "a", "--device", "A", "--remote", url])
        try cli.ok(["clone", url, "b", "--device", "B"])
        let b = try startAgent(cli)
        defer { b.stop() }
        try cli.ok(["-C", "a", "save", "note.txt"], input: "one\n")
        try cli.ok(["-C", "a", "sync"])
        cli.waitForFile("b/note.txt", "one\n", seconds: Self.bound)
        daemon.stop()
        b.waitFor("offline", seconds: Self.bound)
        // Checks and retries go on failing meanwhile (their backoff reaches 4 s and more).
        sleep(8)
        #expect(b.events.filter { $0["event"] as? String == "offline" }.count == 1, "\(b.events)")
        #expect(b.documents("failed").isEmpty && !b.events.contains { $0["event"] as? String == "failed" }, "\(b.events)")
        daemon = try GitDaemon(base: cli.folder, port: daemon.port)
        b.waitFor("backOnline", seconds: 60)
        try cli.ok(["-C", "a", "save", "note.txt"], input: "two\n")
        try cli.ok(["-C", "a", "sync"])
        cli.waitForFile("b/note.txt", "two\n", seconds: Self.bound)
        #expect(b.events.filter { $0["event"] as? String == "offline" }.count == 1, "\(b.events)")
        #expect(b.stop() == 0)
    }

    @Test func aCheckIntervalOutOfRangeIsBadUsageAndStartsNoAgent() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "a", "--device", "A", "--remote", "cloud.git"])
        for value in ["-1", "0.01", "nan", "100000"] {
            let result = try cli.run(["-C", "a", "watch", "--peek-interval=\(value)"])
            #expect(result.status == 2, "\(value)")
            #expect(result.stderr.hasPrefix("Error: --peek-interval takes 0 (never) or a number of seconds from 0.1 to 86400\n"), "\(value): \(result.stderr)")
            #expect(result.stdout.isEmpty, "\(value)")
        }
        #expect(!FileManager.default.fileExists(atPath: "\(cli.folder)/a/.git/concord/agent"))
    }

    // MARK: Helpers

    /// Starts device B's agent, syncing every hour, and waits for its first sync to end (its
    /// `last-sync` written): what arrives later came by the check.
    private func startAgent(
        _ cli: CLI, arguments: [String] = ["--interval", "3600"], sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> WatchAgent {
        let started = Date()
        let agent = try WatchAgent(cli, device: "b", arguments: arguments)
        agent.waitFor("watching", seconds: Self.bound, sourceLocation: sourceLocation)
        let synced = eventually(Self.bound) {
            let attributes = try? FileManager.default.attributesOfItem(atPath: "\(cli.folder)/b/.git/concord/last-sync")
            return (attributes?[.modificationDate] as? Date).map { $0 >= started } ?? false
        }
        #expect(synced, "B's agent never synced", sourceLocation: sourceLocation)
        return agent
    }

    /// Two devices on the cloud at `url`; B's agent syncs every hour; A saves and syncs an edit,
    /// which B's work tree shows.
    private func arrives(_ cli: CLI, url: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try cli.ok(["init", "a", "--device", "A", "--remote", url])
        try cli.ok(["clone", url, "b", "--device", "B"])
        let b = try startAgent(cli, sourceLocation: sourceLocation)
        defer { b.stop() }
        try cli.ok(["-C", "a", "save", "note.txt"], input: "from A\n")
        try cli.ok(["-C", "a", "sync"])
        cli.waitForFile("b/note.txt", "from A\n", seconds: Self.bound, sourceLocation: sourceLocation)
        b.waitFor("received", "note.txt", seconds: Self.bound, sourceLocation: sourceLocation)
        #expect(!b.events.contains { ["offline", "failed"].contains($0["event"] as? String) }, "\(b.events)", sourceLocation: sourceLocation)
        #expect(b.stop() == 0, sourceLocation: sourceLocation)
    }
}
