import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `concord status`: what needs attention in one look, in words and as one JSON document.
@Suite struct StatusTests {
    /// Runs `concord ARGUMENTS` (exit 0) and parses the one JSON object it prints.
    func object(_ cli: CLI, _ arguments: [String], environment: [String: String] = [:]) throws -> [String: Any] {
        let result = try cli.run(arguments, environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        return (try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]) ?? [:]
    }

    /// A conflict, versions waiting to go up, a file over the limit, a last sync that failed
    /// (offline) and an agent running: all in `status`, then an empty status once all is settled.
    @Test func statusShowsConflictsWaitingVersionsSkippedFilesTheLastSyncAndTheAgent() throws {
        var cli = try CLI()
        defer { cli.remove() }
        cli.environment = ["CONCORD_MAX_OBJECT_SIZE": "1k"]
        try cli.ok(["init", "a", "--device", "A", "--remote", "cloud.git"])
        try cli.ok(["clone", "cloud.git", "b", "--device", "B"])
        let empty = try object(cli, ["-C", "a", "status", "--json"])
        #expect((empty["conflicts"] as? [Any])?.isEmpty == true && (empty["lastSync"] is NSNull), "\(empty)")
        try cli.diverge("note.txt", base: "base\n", a: "from a\n", b: "from b\n")
        try cli.ok(["-C", "a", "sync"])
        try cli.ok(["-C", "a", "airplane", "on"])
        try cli.ok(["-C", "a", "save", "todo.txt"], input: "one\n")
        try cli.ok(["-C", "a", "save", "todo.txt"], input: "one\ntwo\n")
        #expect(try cli.run(["-C", "a", "sync"]).status == 1)
        try cli.write("a/big.bin", String(repeating: "x", count: 4096))
        let agent = try WatchAgent(cli, device: "a")
        defer { agent.stop() }
        agent.waitFor("offline")

        let status = try object(cli, ["-C", "a", "status", "--json"])
        let conflicts = status["conflicts"] as? [[String: Any]] ?? []
        #expect(conflicts.count == 1 && conflicts.first?["document"] as? String == "note.txt" && conflicts.first?["versions"] as? Int == 2)
        let contention = conflicts.first?["contention"] as? [[String: Any]] ?? []
        #expect(Set(contention.compactMap { $0["device"] as? String }) == ["A", "B"])
        #expect(contention.allSatisfy { ($0["modified"] as? String)?.isEmpty == false && $0["id"] is String })
        #expect(contention.first?["current"] as? Bool == true)
        let waiting = status["waiting"] as? [[String: Any]] ?? []
        #expect(waiting.count == 1 && waiting.first?["document"] as? String == "todo.txt" && waiting.first?["versions"] as? Int == 2, "\(waiting)")
        #expect(status["waitingVersions"] as? Int == 2)
        let skipped = status["skipped"] as? [[String: Any]] ?? []
        #expect(skipped.count == 1 && skipped.first?["path"] as? String == "big.bin" && skipped.first?["reason"] as? String == "overLimit")
        #expect((skipped.first?["detail"] as? String)?.contains("CONCORD_MAX_OBJECT_SIZE") == true)
        let last = status["lastSync"] as? [String: Any] ?? [:]
        #expect(last["outcome"] as? String == "offline" && (last["error"] as? String)?.contains("airplane mode") == true, "\(last)")
        #expect(last["time"] is String)
        let running = status["agent"] as? [String: Any] ?? [:]
        #expect(running["running"] as? Bool == true && running["pid"] as? Int == Int(agent.pid), "\(running)")
        #expect(status["airplane"] as? Bool == true)

        let text = try cli.ok(["-C", "a", "status"]).split(separator: "\n").map(String.init)
        #expect(text.first == "In conflict: 1 document", "\(text)")
        #expect(text.contains { $0.hasPrefix("  note.txt  2 versions: ") && $0.contains(" (current)") && $0.contains("A ") && $0.contains("B ") }, "\(text)")
        #expect(text.contains("Waiting to go up: 2 versions (1 document)") && text.contains("  todo.txt  2 versions"), "\(text)")
        #expect(text.contains("Not saved: 1 file") && text.contains { $0.hasPrefix("  big.bin  4 KB is over this device's limit of 1 KB") }, "\(text)")
        #expect(text.contains { $0.hasPrefix("Last sync: ") && $0.contains(", offline: offline (airplane mode)") }, "\(text)")
        #expect(text.contains("Agent: running (pid \(agent.pid))"), "\(text)")

        #expect(agent.stop() == 0)
        try FileManager.default.removeItem(atPath: "\(cli.folder)/a/big.bin")
        try cli.ok(["-C", "a", "airplane", "off"])
        try cli.ok(["-C", "a", "resolve", "note.txt", "--latest"])
        try cli.ok(["-C", "a", "sync"])
        let settled = try object(cli, ["-C", "a", "status", "--json"])
        #expect((settled["conflicts"] as? [Any])?.isEmpty == true && (settled["waiting"] as? [Any])?.isEmpty == true)
        #expect(settled["waitingVersions"] as? Int == 0 && (settled["skipped"] as? [Any])?.isEmpty == true)
        #expect((settled["lastSync"] as? [String: Any])?["outcome"] as? String == "pushed")
        #expect((settled["lastSync"] as? [String: Any])?["error"] is NSNull)
        #expect((settled["agent"] as? [String: Any])?["running"] as? Bool == false)
        let words = try cli.ok(["-C", "a", "status"])
        #expect(words.contains("In conflict: nothing\n") && words.contains("Agent: not running (concord watch starts one)\n"), "\(words)")
    }

    /// While another process syncs (a cloud that never answers keeps it at work), `ls` shows
    /// no document `editingDisabled`: a sync alone disables no editing. A save waiting behind it
    /// does, until the sync lets go; `status` reads all along and records how the sync ended.
    @Test func lsDuringAnotherProcesssSyncShowsEditingDisabledOnlyWhileAWriteWaits() throws {
        var cli = try CLI()
        defer { cli.remove() }
        cli.environment = ["CONCORD_NETWORK_TIMEOUT": "15"]
        let server = try StallingServer(.silent)
        defer { server.close() }
        #expect(try cli.run(["init", "a", "--device", "A", "--remote", server.url()]).status == 0)
        try cli.ok(["-C", "a", "save", "a.txt"], input: "a\n")
        let lock = "\(cli.folder)/a/.git/concord/lock"
        func held() -> Bool {
            let descriptor = open(lock, O_RDONLY)
            defer { if descriptor >= 0 { close(descriptor) } }
            return descriptor >= 0 && flock(descriptor, LOCK_SH | LOCK_NB) != 0
        }
        func states() throws -> Set<String> { Set(try cli.json(["-C", "a", "ls", "--json"]).compactMap { $0["state"] as? String }) }
        let sync = try ChildProcess([CLI.binary, "-C", "\(cli.folder)/a", "sync"], environment: cli.environment, stdout: "/dev/null", stderr: "/dev/null")
        #expect(eventually(30) { held() }, "the sync never took the container")
        #expect(try states() == ["normal"])
        try cli.write("b.txt", "b\n")
        let save = try ChildProcess(
            [CLI.binary, "-C", "\(cli.folder)/a", "save", "b.txt", "--file", "\(cli.folder)/b.txt"], environment: ["CONCORD_LOCK_TIMEOUT": "60"],
            stdout: "/dev/null", stderr: "/dev/null")
        #expect(try eventually(30) { try states() == ["editingDisabled"] }, "ls never said editingDisabled while the save waited")
        #expect(try cli.run(["-C", "a", "status"]).status == 0)
        #expect(sync.exitStatus(within: 60) == 1)
        #expect(save.exitStatus(within: 60) == 0)
        #expect(try states() == ["normal"])
        #expect(try cli.ok(["-C", "a", "show", "b.txt"]) == "b\n")
        let status = try object(cli, ["-C", "a", "status", "--json"])
        let last = status["lastSync"] as? [String: Any] ?? [:]
        #expect(last["outcome"] as? String == "offline" && (last["error"] as? String)?.contains("timed out") == true, "\(last)")
    }
}
