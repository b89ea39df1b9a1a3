import Foundation
import Testing

/// Rules that resolve on their own, through the built `concord` and its agents over a cloud on
/// a local path: `.concord/policies` lines ending with `auto`.
@Suite struct AutoResolveCLITests {
    /// A cloud and devices `a` and `b`, both holding `rules` in `.concord/policies`.
    func twoDevices(_ cli: CLI, rules: String) throws {
        try cli.ok(["init", "a", "--device", "A", "--remote", "cloud.git"])
        try cli.ok(["clone", "cloud.git", "b", "--device", "B"])
        try cli.ok(["-C", "a", "policies", "--file", "-"], input: rules)
        try cli.ok(["-C", "a", "sync"])
        try cli.ok(["-C", "b", "sync"])
    }

    /// Runs `concord ARGUMENTS --json` (exit 0) and parses the one JSON object it prints.
    func object(_ cli: CLI, _ arguments: [String]) throws -> [String: Any] {
        let output = try cli.ok(arguments)
        return (try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any]) ?? [:]
    }

    /// The contents of every version `document` ever had on `device`, by version id.
    func history(_ cli: CLI, _ device: String, _ document: String) throws -> [String: String] {
        var contents: [String: String] = [:]
        for version in try cli.json(["-C", device, "versions", document, "--all", "--json"]) {
            guard let id = version["id"] as? String else { continue }
            contents[id] = try cli.ok(["-C", device, "show", document, "--version", id])
        }
        return contents
    }

    static let state = ".obsidian/workspace.json"

    /// An app rewrites its state file on both devices between syncs: every sync that meets the
    /// other device's version resolves it (latest wins) before it pushes, so no device ever
    /// lists a conflict; both end on the same content; every version saved stays in the history
    /// of both.
    @Test func anAppStateFileRewrittenOnTwoDevicesWithLatestAutoNeverLeavesAConflict() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try twoDevices(cli, rules: "\(Self.state) latest auto\n")
        var saved: Set<String> = []
        var resolved = 0
        for round in 0..<5 {
            for device in ["a", "b"] {
                let content = "{\"round\": \(round), \"device\": \"\(device)\"}\n"
                try cli.write("\(device)/\(Self.state)", content)
                try cli.ok(["-C", device, "save", Self.state])
                saved.insert(content)
            }
            for device in ["a", "b"] {
                let report = try object(cli, ["-C", device, "sync", "--json"])
                #expect((report["conflicts"] as? [String]) == [], "\(device) round \(round): \(report)")
                #expect((report["newConflicts"] as? [String]) == [])
                resolved += (report["autoResolved"] as? [Any])?.count ?? 0
                #expect(try cli.json(["-C", device, "conflicts", "--json"]).isEmpty)
            }
        }
        // Each sync but a's first meets a version the other device saved concurrently.
        #expect(resolved == 9)
        try cli.ok(["-C", "a", "sync"])
        #expect(cli.file("a/\(Self.state)") == cli.file("b/\(Self.state)"))
        #expect(cli.file("a/\(Self.state)")?.hasPrefix("{\"round\": 4,") == true)
        #expect(try cli.tree("a") == cli.tree("b"))
        let historyA = try history(cli, "a", Self.state), historyB = try history(cli, "b", Self.state)
        #expect(Set(historyA.keys) == Set(historyB.keys))
        #expect(saved.isSubset(of: Set(historyA.values)), "\(saved.subtracting(historyA.values))")
        #expect(try cli.fsck("a").isEmpty && cli.fsck("b").isEmpty)
    }

    /// The same with an agent on each device and the app writing on both at once: no agent ever
    /// says a conflict for the state file, and both converge to the same content and history.
    @Test func twoAgentsAndAnAppRewritingItsStateOnBothNeverShowAConflict() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try twoDevices(cli, rules: "\(Self.state) latest auto\n")
        let a = try WatchAgent(cli, device: "a"), b = try WatchAgent(cli, device: "b")
        defer { a.stop(); b.stop() }
        a.waitFor("watching")
        b.waitFor("watching")
        for round in 0..<12 {
            try cli.write("a/\(Self.state)", "{\"tick\": \(round), \"on\": \"a\"}\n")
            try cli.write("b/\(Self.state)", "{\"tick\": \(round), \"on\": \"b\"}\n")
            usleep(400_000)
        }
        let settled = eventually(90) {
            let same = cli.file("a/\(Self.state)") == cli.file("b/\(Self.state)")
            let trees = (try? cli.tree("a")) == (try? cli.tree("b"))
            return same && trees && (try? cli.json(["-C", "a", "conflicts", "--json"]).isEmpty) == true
        }
        #expect(settled, "the devices did not converge: a holds \(cli.file("a/\(Self.state)") ?? "nil"), b \(cli.file("b/\(Self.state)") ?? "nil")")
        #expect(a.stop() == 0)
        #expect(b.stop() == 0)
        for agent in [a, b] {
            #expect(!agent.documents("newConflict").contains(Self.state), "\(agent.device): \(agent.events)")
        }
        #expect(a.documents("autoResolved").count + b.documents("autoResolved").count >= 1, "no version ever met another")
        for device in ["a", "b", "a"] { try cli.ok(["-C", device, "sync"]) }
        #expect(try cli.tree("a") == cli.tree("b"))
        #expect(try cli.json(["-C", "b", "conflicts", "--json"]).isEmpty)
        #expect(Set(try history(cli, "a", Self.state).keys) == Set(try history(cli, "b", Self.state).keys))
    }

    /// A text rule with `auto`: changes to different lines merge on their own; changes to the
    /// same lines stay in conflict, told in one line of `sync`, the sync still succeeding.
    @Test func aTextAutoRuleMergesCleanChangesAndLeavesClashesForAPersonInOneLine() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try twoDevices(cli, rules: "*.md text auto\n")
        for document in ["clean.md", "clash.md"] { try cli.ok(["-C", "a", "save", document], input: "one\ntwo\nthree\n") }
        try cli.ok(["-C", "a", "sync"])
        try cli.ok(["-C", "b", "sync"])
        try cli.ok(["-C", "a", "save", "clean.md"], input: "one, from a\ntwo\nthree\n")
        try cli.ok(["-C", "b", "save", "clean.md"], input: "one\ntwo\nthree, from b\n")
        try cli.ok(["-C", "a", "save", "clash.md"], input: "one\ntwo, from a\nthree\n")
        try cli.ok(["-C", "b", "save", "clash.md"], input: "one\ntwo, from b\nthree\n")
        try cli.ok(["-C", "a", "sync"])
        let sync = try cli.run(["-C", "b", "sync"])
        #expect(sync.status == 0, "\(sync.stderr)")
        let lines = sync.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("  resolved     clean.md (auto): merged 2 versions with the text policy"), "\(lines)")
        let clash = lines.filter { $0.contains("clash.md") }
        #expect(clash.count == 1, "\(lines)")
        #expect(clash.first?.hasPrefix("  in conflict  clash.md: its rule '*.md text auto' did not resolve it, a person must: ") == true, "\(clash)")
        for device in ["a", "b"] {
            if device == "a" { try cli.ok(["-C", "a", "sync"]) }
            #expect(cli.file("\(device)/clean.md") == "one, from a\ntwo\nthree, from b\n")
            #expect(try cli.json(["-C", device, "conflicts", "--json"]).map { $0["document"] as? String } == ["clash.md"])
        }
        // The JSON report says the same, and a sync with nothing new says nothing more.
        let quiet = try object(cli, ["-C", "b", "sync", "--json"])
        #expect((quiet["autoUnresolved"] as? [Any])?.isEmpty == true && (quiet["conflicts"] as? [String]) == ["clash.md"])
        try cli.ok(["-C", "b", "resolve", "clash.md", "--file", "-"], input: "one\ntwo, from both\nthree\n")
        try cli.ok(["-C", "b", "sync"])
        try cli.ok(["-C", "a", "sync"])
        #expect(cli.file("a/clash.md") == "one\ntwo, from both\nthree\n")
    }

    @Test func theJSONReportNamesWhatARuleLeftInConflict() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try twoDevices(cli, rules: "*.md text auto\n")
        try cli.diverge("n.md", base: "x\n", a: "from a\n", b: "from b\n")
        // diverge syncs a then b: b made the conflict, a received it; both say it once.
        try cli.ok(["-C", "a", "save", "n.md"], input: "from a, again\n")
        try cli.ok(["-C", "b", "save", "n.md"], input: "from b, again\n")
        try cli.ok(["-C", "a", "sync"])
        let report = try object(cli, ["-C", "b", "sync", "--json"])
        let left = (report["autoUnresolved"] as? [[String: Any]]) ?? []
        #expect(left.count == 1, "\(report)")
        #expect(left.first?["document"] as? String == "n.md" && left.first?["rule"] as? String == "*.md text auto")
        #expect((left.first?["reason"] as? String)?.isEmpty == false)
    }
}
