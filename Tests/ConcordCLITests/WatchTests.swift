import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `concord watch`: two devices with an agent each and a cloud on a local path. Every wait is
/// for a condition with a generous deadline; no timing is asserted.
@Suite(.serialized) struct WatchTests {
    /// A cloud and devices `a` and `b`, with an agent started on each (when `agents`).
    func twoDevices(_ cli: CLI) throws -> (WatchAgent, WatchAgent) {
        try cli.ok(["init", "a", "--device", "A", "--remote", "cloud.git"])
        try cli.ok(["clone", "cloud.git", "b", "--device", "B"])
        let agents = (try WatchAgent(cli, device: "a"), try WatchAgent(cli, device: "b"))
        agents.0.waitFor("watching")
        agents.1.waitFor("watching")
        return agents
    }

    @Test func anEditOnOneDeviceReachesTheOthersWorkTreeAndBack() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let (a, b) = try twoDevices(cli)
        defer { a.stop(); b.stop() }
        try cli.write("a/note.txt", "Buy milk\n")
        cli.waitForFile("b/note.txt", "Buy milk\n")
        b.waitFor("received", "note.txt")
        try cli.write("b/note.txt", "Buy oat milk\n")
        cli.waitForFile("a/note.txt", "Buy oat milk\n")
        // An editor that saves by writing a new file and renaming it over the old one (written
        // outside the work tree here, so that only the rename tells).
        try cli.write("new-note.txt", "Buy oat milk and eggs\n")
        #expect(rename("\(cli.folder)/new-note.txt", "\(cli.folder)/a/note.txt") == 0)
        cli.waitForFile("b/note.txt", "Buy oat milk and eggs\n")
        #expect(a.stop() == 0)
        #expect(b.stop() == 0)
        // What b received was not saved again as b's own edit: b saved once, its own edit.
        #expect(b.events.filter { $0["event"] as? String == "saved" }.count == 1)
        let versions = try cli.json(["-C", "b", "versions", "note.txt", "--all", "--json"])
        #expect(versions.count == 3)
    }

    @Test func aNewFolderAndTheFilesInItReachTheOtherDevice() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let (a, b) = try twoDevices(cli)
        defer { a.stop(); b.stop() }
        try cli.write("a/trips/2026/plan.txt", "Lisbon\n")
        cli.waitForFile("b/trips/2026/plan.txt", "Lisbon\n")
        // The new folders are watched too: an edit made in one later is seen.
        try cli.write("a/trips/2026/plan.txt", "Lisbon, then Porto\n")
        cli.waitForFile("b/trips/2026/plan.txt", "Lisbon, then Porto\n")
        // A folder moved into the work tree with files already in it.
        try cli.write("outside/recipes/bread.md", "flour, water, salt\n")
        #expect(rename("\(cli.folder)/outside/recipes", "\(cli.folder)/b/recipes") == 0)
        cli.waitForFile("a/recipes/bread.md", "flour, water, salt\n")
        try cli.write("b/recipes/bread.md", "flour, water, salt, yeast\n")
        cli.waitForFile("a/recipes/bread.md", "flour, water, salt, yeast\n")
        // Removals travel too: a whole folder, and one file.
        try FileManager.default.removeItem(atPath: "\(cli.folder)/a/trips")
        #expect(eventually { cli.file("b/trips/2026/plan.txt") == nil }, "the removed folder's file left b")
        try FileManager.default.removeItem(atPath: "\(cli.folder)/b/recipes/bread.md")
        #expect(eventually { cli.file("a/recipes/bread.md") == nil }, "the removed file left a")
        #expect(try cli.json(["-C", "a", "ls", "--json"]).isEmpty)
    }

    /// Waits until device `a` holds `document` as `whole`, then expects that to be its one version
    /// (a version of it half-written came before, otherwise).
    func expectSavedOnce(
        _ document: String, whole: String, _ cli: CLI, _ agent: WatchAgent, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let saved = eventually { (try? cli.run(["-C", "a", "show", document]).stdout) == whole }
        #expect(saved, "\(document) was never saved whole: \(agent.events)", sourceLocation: sourceLocation)
        let versions = try cli.json(["-C", "a", "versions", document, "--all", "--json"])
        #expect(versions.count == 1, "\(document): \(versions.count) versions of a file written once", sourceLocation: sourceLocation)
    }

    /// A writer that makes a folder and at once writes a file in it, in chunks with pauses
    /// longer than the agent's quiet moment, holding it open: the file was open before the agent
    /// watched the folder, yet it is saved once, whole (issue 38). Four such files (whether the
    /// agent watches a folder before its file opens is a race), and two in folders moved into the
    /// work tree after their first chunk (opened before any watch, always).
    @Test func aFileWrittenSlowlyIntoANewFolderIsSavedOnceWhole() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "a", "--device", "A"])
        let agent = try WatchAgent(cli, device: "a")
        defer { agent.stop() }
        agent.waitFor("watching")
        let chunks = (1...4).map { "chunk \($0) of the minutes\n" }
        let script = """
            import os, sys, time
            work_tree, outside = sys.argv[1], sys.argv[1] + "-outside"
            files = []
            for n in range(6):
                folder = f"{work_tree if n < 4 else outside}/meeting-{n}"
                os.makedirs(folder)
                files.append(open(f"{folder}/minutes.txt", "w"))
            for index, chunk in enumerate(sys.argv[2:]):
                for file in files:
                    file.write(chunk)
                    file.flush()
                if index == 0:
                    for n in range(4, 6):
                        os.rename(f"{outside}/meeting-{n}", f"{work_tree}/meeting-{n}")
                time.sleep(0.6)
            for file in files:
                file.close()
            """
        let writer = try ChildProcess(["/usr/bin/env", "python3", "-c", script, "\(cli.folder)/a"] + chunks)
        #expect(writer.exitStatus(within: 60) == 0)
        for n in 0..<6 {
            try expectSavedOnce("meeting-\(n)/minutes.txt", whole: chunks.joined(), cli, agent)
        }
        #expect(agent.stop() == 0)
    }

    /// A file its writer holds open when the agent starts waits for its writer as one opened
    /// later does: saved once, whole.
    @Test func aFileBeingWrittenWhenTheAgentStartsIsSavedOnceWhole() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "a", "--device", "A"])
        let chunks = (1...3).map { "chunk \($0) of the log\n" }
        let go = "\(cli.folder)/go"
        let script = """
            import os, sys, time
            file = open(sys.argv[1], "w")
            for index, chunk in enumerate(sys.argv[3:]):
                file.write(chunk)
                file.flush()
                while index == 0 and not os.path.exists(sys.argv[2]):
                    time.sleep(0.05)
                time.sleep(0.6)
            file.close()
            """
        let writer = try ChildProcess(["/usr/bin/env", "python3", "-c", script, "\(cli.folder)/a/log.txt", go] + chunks)
        #expect(eventually { cli.file("a/log.txt") == chunks[0] })
        let agent = try WatchAgent(cli, device: "a")
        defer { agent.stop() }
        agent.waitFor("watching")
        try cli.write("go", "")
        #expect(writer.exitStatus(within: 60) == 0)
        try expectSavedOnce("log.txt", whole: chunks.joined(), cli, agent)
        #expect(agent.stop() == 0)
    }

    @Test func anAirplaneEditAndAConcurrentEditEndInConflictOnBothDevicesAndBothAgentsSaySo() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let (a, b) = try twoDevices(cli)
        defer { a.stop(); b.stop() }
        try cli.write("a/note.txt", "base\n")
        cli.waitForFile("b/note.txt", "base\n")
        try cli.ok(["-C", "a", "airplane", "on"])
        a.waitFor("offline")
        try cli.write("a/note.txt", "edited in the air\n")
        #expect(eventually { a.documents("saved").filter { $0 == "note.txt" }.count == 2 })
        try cli.write("b/note.txt", "edited on the ground\n")
        #expect(eventually { b.documents("sent").filter { $0 == "note.txt" }.count == 1 })
        try cli.ok(["-C", "a", "airplane", "off"])
        a.waitFor("backOnline")
        a.waitFor("newConflict", "note.txt")
        b.waitFor("newConflict", "note.txt")
        for device in ["a", "b"] {
            let conflicts = try cli.json(["-C", device, "conflicts", "--json"])
            #expect(conflicts.map { $0["document"] as? String } == ["note.txt"])
            #expect(conflicts.first?["versions"] as? Int == 2)
        }
        // Nothing either device saved is lost: both edits are versions in contention.
        let contents = try cli.json(["-C", "b", "versions", "note.txt", "--json"]).compactMap { $0["id"] as? String }.map {
            try cli.ok(["-C", "b", "show", "note.txt", "--version", $0])
        }
        #expect(Set(contents) == ["edited in the air\n", "edited on the ground\n"])
        // A resolve typed on b: b's agent sends it, a's receives it, both say resolved.
        try cli.ok(["-C", "b", "resolve", "note.txt", "--latest"])
        b.waitFor("resolved", "note.txt")
        a.waitFor("resolved", "note.txt")
        #expect(eventually { cli.file("a/note.txt") == cli.file("b/note.txt") })
        #expect(try cli.json(["-C", "a", "conflicts", "--json"]).isEmpty)
    }

    /// Without `--json`: one line an event, its time, its name, then what it concerns.
    @Test func theTextOutputIsOneLineAnEvent() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "a", "--device", "A", "--remote", "cloud.git"])
        let a = try WatchAgent(cli, device: "a", json: false)
        defer { a.stop() }
        try cli.write("a/my notes/list.txt", "eggs\n")
        #expect(eventually { a.lines.contains { $0.hasSuffix("  sent         my notes/list.txt") } }, "\(a.lines)")
        #expect(a.stop() == 0)
        let lines = a.lines
        #expect(lines.first?.contains("  watching     \(cli.folder)/a as A, syncing every ") == true, "\(lines)")
        #expect(lines.contains { $0.hasSuffix("  saved        my notes/list.txt") }, "\(lines)")
        let timed = try Regex(#"^\d\d:\d\d:\d\d  \S"#)
        #expect(lines.allSatisfy { $0.contains(timed) }, "\(lines)")
    }

    /// The cloud's folder goes away (a disk unplugged) and comes back: the agent keeps saving,
    /// says offline once, retries with backoff, and sends what it saved when the cloud is back.
    @Test func whileTheCloudCannotBeReachedTheAgentKeepsSavingAndRetries() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let (a, b) = try twoDevices(cli)
        defer { a.stop(); b.stop() }
        try cli.write("a/note.txt", "one\n")
        cli.waitForFile("b/note.txt", "one\n")
        #expect(rename("\(cli.folder)/cloud.git", "\(cli.folder)/cloud.away") == 0)
        try cli.write("a/note.txt", "two\n")
        a.waitFor("offline")
        try cli.write("a/other.txt", "three\n")
        #expect(eventually { a.documents("saved").contains("other.txt") }, "a saved while offline")
        #expect(a.events.filter { $0["event"] as? String == "offline" }.count == 1)
        #expect(rename("\(cli.folder)/cloud.away", "\(cli.folder)/cloud.git") == 0)
        a.waitFor("backOnline")
        cli.waitForFile("b/note.txt", "two\n")
        cli.waitForFile("b/other.txt", "three\n")
        #expect(a.stop() == 0)
        #expect(b.stop() == 0)
    }

    /// A network cloud cannot be watched: the agents learn of each other's versions at their
    /// periodic sync.
    @Test func overGitDaemonTheAgentsSyncEveryInterval() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.git(["init", "--quiet", "--bare", "--initial-branch=main", "cloud.git"], in: ".")
        let daemon = try GitDaemon(base: cli.folder)
        defer { daemon.stop() }
        try cli.ok(["init", "a", "--device", "A", "--remote", daemon.url("cloud.git")])
        try cli.ok(["clone", daemon.url("cloud.git"), "b", "--device", "B"])
        let a = try WatchAgent(cli, device: "a", arguments: ["--interval", "1"])
        let b = try WatchAgent(cli, device: "b", arguments: ["--interval", "1"])
        defer { a.stop(); b.stop() }
        try cli.write("a/note.txt", "over the network\n")
        cli.waitForFile("b/note.txt", "over the network\n")
        b.waitFor("received", "note.txt")
    }

    @Test func sigtermAndSigintStopTheAgentWithExitZero() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let (a, b) = try twoDevices(cli)
        defer { a.stop(); b.stop() }
        try cli.write("a/note.txt", "one\n")
        cli.waitForFile("b/note.txt", "one\n")
        #expect(a.stop(signal: SIGTERM) == 0)
        #expect(b.stop(signal: SIGINT) == 0)
    }

    @Test func aSecondAgentOnTheSameDeviceIsRefused() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "a", "--device", "A"])
        let agent = try WatchAgent(cli, device: "a")
        defer { agent.stop() }
        agent.waitFor("watching")
        let second = try WatchAgent(cli, device: "a")
        defer { second.stop() }
        #expect(second.exitStatus() == 1)
        #expect(second.errors == "concord: another sync agent is already running on \(cli.folder)/a\n")
        #expect(agent.stop() == 0)
    }

    @Test func killingAnAgentDuringABurstOfEditsLosesNoEdit() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "a", "--device", "A", "--remote", "cloud.git"])
        let first = try WatchAgent(cli, device: "a")
        defer { first.stop() }
        first.waitFor("watching")
        // Edits keep coming; the agent is killed as soon as it says it saved (it is then
        // sending, or saving the next edits), and the edits go on without it.
        var index = 0, killedAt: Int?
        let deadline = Date().addingTimeInterval(120)
        while killedAt.map({ index < $0 + 30 }) ?? (Date() < deadline) {
            try cli.write("a/burst/file\(index % 10).txt", "edit \(index)\n")
            if killedAt == nil && !first.documents("saved").isEmpty {
                first.kill9()
                killedAt = index
            }
            index += 1
            usleep(30_000)
        }
        #expect(killedAt != nil, "the agent never saved during the burst")
        #expect(try cli.git(["fsck", "--no-dangling"], in: "a").isEmpty)
        let second = try WatchAgent(cli, device: "a")
        defer { second.stop() }
        second.waitFor("watching")
        let saved = try eventually {
            try (index - 10..<index).allSatisfy { edit in
                try cli.run(["-C", "a", "show", "burst/file\(edit % 10).txt"]).stdout == "edit \(edit)\n"
            }
        }
        #expect(saved, "the last edit of every file is its current version")
        let sent = try eventually { try cli.git(["rev-parse", "main"], in: "a") == cli.git(["--git-dir", "cloud.git", "rev-parse", "main"], in: ".") }
        #expect(sent, "the saved edits went up to the cloud")
        #expect(second.stop() == 0)
        #expect(try cli.git(["fsck", "--no-dangling"], in: "a").isEmpty)
    }

    /// Editors' and systems' temporary files never become documents through the agent, however
    /// often they are rewritten; rules that arrive from another device apply at once: a file a
    /// new `!` rule re-includes is saved though nobody touched it since.
    @Test func theAgentNeverSavesIgnoredFilesAndFollowsNewRules() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let (a, b) = try twoDevices(cli)
        defer { a.stop(); b.stop() }
        for file in IgnoreTests.temporaryFiles { try cli.write("a/\(file)", "scratch\n") }
        try cli.write("a/.concordignore", "*.log\n")
        try cli.write("a/app.log", "log\n")
        try cli.write("a/note.md", "Buy milk\n")
        cli.waitForFile("b/note.md", "Buy milk\n")
        cli.waitForFile("b/.concordignore", "*.log\n")
        // vim rewrites its swap file as the note is edited
        try cli.write("a/.note.md.swp", "more scratch\n")
        try cli.write("a/note.md", "Buy oat milk\n")
        try cli.write("a/.note.md.swp", "even more scratch\n")
        cli.waitForFile("b/note.md", "Buy oat milk\n")
        for file in IgnoreTests.temporaryFiles + ["app.log"] { #expect(cli.file("b/\(file)") == nil, "\(file)") }
        #expect(Set(a.documents("saved")) == [".concordignore", "note.md"])
        for device in ["a", "b"] {
            #expect(try cli.json(["-C", device, "ls", "--json"]).compactMap { $0["document"] as? String } == [".concordignore", "note.md"])
        }
        try cli.write("b/.concordignore", "*.log\n!x.tmp\n")
        cli.waitForFile("a/.concordignore", "*.log\n!x.tmp\n")
        cli.waitForFile("b/x.tmp", "scratch\n")
        #expect(a.stop() == 0)
        #expect(b.stop() == 0)
        #expect(a.documents("saved").filter { $0 != ".concordignore" && $0 != "note.md" } == ["x.tmp"])
    }
}
