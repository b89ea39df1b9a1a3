import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The agent tells each new conflict in one line and, with `--notify`, as a desktop
/// notification through `notify-send` (here a fake one on PATH that records its arguments).
@Suite struct AgentConflictTests {
    /// A fake `notify-send` in `folder/bin-NAME`, appending each argument as a line to `folder/NAME`.
    func fakeNotifier(_ cli: CLI, _ name: String) throws -> String {
        let bin = "\(cli.folder)/bin-\(name)"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        let script = "#!/bin/sh\nfor argument in \"$@\"; do printf '%s\\n' \"$argument\"; done >> '\(cli.folder)/\(name)'\n"
        try Data(script.utf8).write(to: URL(fileURLWithPath: "\(bin)/notify-send"))
        chmod("\(bin)/notify-send", 0o755)
        return bin
    }

    @Test func eachNewConflictIsOneLineAndADesktopNotificationWithNotify() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "a", "--device", "A", "--remote", "cloud.git"])
        try cli.ok(["clone", "cloud.git", "b", "--device", "B"])
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let binA = try fakeNotifier(cli, "notified-a"), binB = try fakeNotifier(cli, "notified-b")
        let a = try WatchAgent(cli, device: "a", json: false, arguments: ["--interval", "3600", "--notify"], environment: ["PATH": "\(binA):\(path)"])
        let b = try WatchAgent(cli, device: "b", environment: ["PATH": "\(binB):\(path)"])
        defer { a.stop(); b.stop() }
        b.waitFor("watching")
        #expect(eventually { a.lines.contains { $0.contains("watching") } })
        try cli.write("a/note.txt", "base\n")
        cli.waitForFile("b/note.txt", "base\n")
        try cli.ok(["-C", "a", "airplane", "on"])
        try cli.write("a/note.txt", "edited in the air\n")
        #expect(eventually { a.lines.filter { $0.contains("  saved ") && $0.hasSuffix("note.txt") }.count >= 2 })
        try cli.write("b/note.txt", "edited on the ground\n")
        #expect(eventually { b.documents("sent").filter { $0 == "note.txt" }.count == 1 })
        try cli.ok(["-C", "a", "airplane", "off"])
        let versions = #"2 versions in contention: (A|B)'s version of \S+ \(current\), (A|B)'s version of \S+"#
        let pattern = try Regex(#"^\d\d:\d\d:\d\d  new conflict note\.txt: "# + versions + #"; resolve it: concord resolve note\.txt --latest \(or --merge\)$"#)
        #expect(eventually { a.lines.contains { $0.contains(pattern) } }, "\(a.lines)")
        #expect(a.lines.filter { $0.contains("new conflict") }.count == 1, "\(a.lines)")
        b.waitFor("newConflict", "note.txt")
        let event = try #require(b.events.first { $0["event"] as? String == "newConflict" })
        #expect(event["documents"] as? [String] == ["note.txt"])
        #expect((event["detail"] as? String)?.hasPrefix("2 versions in contention: ") == true, "\(event)")
        #expect(eventually { (cli.file("notified-a") ?? "").split(separator: "\n").count >= 4 })
        let arguments = (cli.file("notified-a") ?? "").split(separator: "\n").map(String.init)
        #expect(arguments.prefix(3) == ["--app-name=Concord", "--", "Conflict in note.txt"], "\(arguments)")
        #expect(arguments.count == 4 && arguments[3].hasPrefix("2 versions in contention: "), "\(arguments)")
        #expect(a.stop() == 0)
        #expect(b.stop() == 0)
        // Without --notify, the notifier on PATH is never run.
        #expect(cli.file("notified-b") == nil)
    }

    /// With `--notify` and no `notify-send` installed, the agent says so once and works on.
    @Test func withoutNotifySendTheAgentSaysSoOnceAndRuns() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "a", "--device", "A", "--remote", "cloud.git"])
        let empty = "\(cli.folder)/empty-bin"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        // A notify-send inside the container, on a relative PATH entry, is never run either.
        try cli.write("a/bin/notify-send", "#!/bin/sh\ntouch '\(cli.folder)/ran'\n")
        chmod("\(cli.folder)/a/bin/notify-send", 0o755)
        let agent = try WatchAgent(
            cli, device: "a", arguments: ["--interval", "3600", "--notify"], environment: ["PATH": "\(empty):\(cli.folder)/a/bin:bin"])
        defer { agent.stop() }
        agent.waitFor("watching")
        try cli.write("a/note.txt", "hello\n")
        agent.waitFor("sent", "bin/notify-send")
        #expect(agent.stop() == 0)
        let lines = agent.errors.split(separator: "\n").filter { $0.contains("notify-send") }
        #expect(lines == ["concord: notify-send was not found (libnotify): new conflicts are told here only, not as desktop notifications"], "\(agent.errors)")
        #expect(!FileManager.default.fileExists(atPath: "\(cli.folder)/ran"))
    }
}
