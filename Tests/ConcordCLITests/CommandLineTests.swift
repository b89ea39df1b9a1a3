import Foundation
import Testing

@Suite struct CommandLineTests {
    @Test func helpAndVersion() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let help = try cli.ok(["--help"])
        for command in ["init", "clone", "save", "rm", "ls", "sync", "airplane", "conflicts", "versions", "show", "resolve", "log", "merge-file"] {
            #expect(help.contains("  \(command) "), "help lists \(command)")
        }
        #expect(try cli.ok(["--version"]).trimmingCharacters(in: .whitespacesAndNewlines) == "0.1.0")
        #expect(try cli.ok(["resolve", "--help"]).contains("--dry-run"))
    }

    @Test func badUsageExitsTwo() throws {
        let cli = try CLI()
        defer { cli.remove() }
        #expect(try cli.run(["versions"]).status == 2)
        #expect(try cli.run(["resolve", "note.txt", "--latest", "--merge"]).status == 2)
        #expect(try cli.run(["resolve", "--all", "--keep", "abc"]).status == 2)
        #expect(try cli.run(["airplane", "sideways"]).status == 2)
        #expect(try cli.run(["no-such-command"]).status == 2)
    }

    /// A mistyped command gets one line naming the command probably meant, exit 2; so does
    /// `help` of a command that does not exist. Nothing else is printed.
    @Test func aMistypedCommandGetsASuggestion() throws {
        let cli = try CLI()
        defer { cli.remove() }
        for (arguments, line) in [
            (["sycn"], "unknown command 'sycn'; did you mean 'sync'?"),
            (["-C", "somewhere", "verisons", "note.md"], "unknown command 'verisons'; did you mean 'versions'?"),
            (["resovle", "--all", "--latest"], "unknown command 'resovle'; did you mean 'resolve'?"),
            (["sl"], "unknown command 'sl'; did you mean 'ls'?"),
            (["help", "foo"], "unknown command 'foo' (see 'concord --help')"),
            (["help", "sav"], "unknown command 'sav'; did you mean 'save'?"),
            (["xyzzy"], "unknown command 'xyzzy' (see 'concord --help')"),
        ] {
            let result = try cli.run(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr == "concord: \(line)\n", "\(arguments)")
            #expect(result.stdout.isEmpty, "\(arguments)")
        }
        #expect(try cli.ok(["help", "sync"]).contains("USAGE: concord sync"))
        #expect(try cli.ok(["help"]).contains("SUBCOMMANDS:"))
    }

    /// The seed scenario, driven through the binary, over a local-path cloud and over git daemon.
    @Test(arguments: ["local", "git-daemon"])
    func airplaneScenario(cloud kind: String) throws {
        let cli = try CLI()
        defer { cli.remove() }
        var daemon: GitDaemon?
        defer { daemon?.stop() }
        var url = "cloud.git"
        if kind == "git-daemon" {
            let bare = Process()
            bare.executableURL = URL(fileURLWithPath: "/usr/bin/git")
            bare.arguments = ["init", "--quiet", "--bare", "--initial-branch=main", "\(cli.folder)/cloud.git"]
            try bare.run()
            bare.waitUntilExit()
            daemon = try GitDaemon(base: cli.folder)
            url = daemon!.url("cloud.git")
        }
        try cli.ok(["init", "phone", "--device", "iPhone", "--remote", url])
        try cli.ok(["clone", url, "tablet", "--device", "iPad"])
        try cli.ok(["-C", "phone", "save", "note.txt"], input: "hello\n")
        try cli.ok(["-C", "phone", "sync"])
        try cli.ok(["-C", "tablet", "sync"])
        try cli.ok(["-C", "phone", "airplane", "on"])
        try cli.ok(["-C", "phone", "save", "note.txt"], input: "hello from the phone\n")
        let offline = try cli.run(["-C", "phone", "sync"])
        #expect(offline.status == 1)
        #expect(offline.stderr.contains("offline (airplane mode)") && offline.stderr.contains("1 local version waits"))
        try cli.ok(["-C", "tablet", "save", "note.txt"], input: "hello from the tablet\n")
        try cli.ok(["-C", "tablet", "sync"])
        try cli.ok(["-C", "phone", "airplane", "off"])
        let report = try JSONSerialization.jsonObject(with: Data(try cli.ok(["-C", "phone", "sync", "--json"]).utf8)) as? [String: Any]
        #expect(report?["newConflicts"] as? [String] == ["note.txt"])
        try cli.ok(["-C", "tablet", "sync"])
        for device in ["phone", "tablet"] {
            let conflicts = try cli.json(["-C", device, "conflicts", "--json"])
            #expect(conflicts.count == 1)
            #expect(conflicts.first?["document"] as? String == "note.txt")
            #expect(conflicts.first?["versions"] as? Int == 2)
            let versions = try cli.json(["-C", device, "versions", "note.txt", "--json"])
            #expect(versions.count == 2)
            #expect(versions.first?["current"] as? Bool == true)
            #expect(Set(versions.compactMap { $0["device"] as? String }) == ["iPhone", "iPad"])
            #expect(versions.allSatisfy { $0["id"] is String && $0["modified"] is String && $0["deleted"] as? Bool == false })
            for version in versions {
                let content = try cli.ok(["-C", device, "show", "note.txt", "--version", version["id"] as! String])
                #expect(["hello from the phone\n", "hello from the tablet\n"].contains(content))
            }
        }
        #expect(try cli.tree("phone") == cli.tree("tablet"))
        let resolved = try cli.ok(["-C", "tablet", "resolve", "note.txt", "--latest"])
        #expect(resolved.contains("kept") && resolved.contains("removed"))
        try cli.ok(["-C", "tablet", "sync"])
        try cli.ok(["-C", "phone", "sync"])
        #expect(try cli.json(["-C", "phone", "conflicts", "--json"]).isEmpty)
        #expect(try cli.json(["-C", "phone", "versions", "note.txt", "--json"]).count == 1)
        let history = try cli.ok(["-C", "phone", "log", "note.txt"])
        #expect(history.split(separator: "\n").count == 4)
        #expect(try cli.tree("phone") == cli.tree("tablet"))
    }

    @Test func mergeThatNeedsAPersonExitsThreeThenFileFinishes() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "a", "--device", "A", "--remote", "cloud.git"])
        try cli.ok(["clone", "cloud.git", "b", "--device", "B"])
        try cli.diverge("n.txt", base: "line\n", a: "line from A\n", b: "line from B\n")
        let before = try cli.tree("b")
        let merge = try cli.run(["-C", "b", "resolve", "n.txt", "--merge", "--output", "marked.txt"])
        #expect(merge.status == 3)
        #expect(try cli.tree("b") == before)
        let marked = try String(contentsOfFile: "\(cli.folder)/b/marked.txt", encoding: .utf8)
        #expect(marked.contains("<<<<<<< ") && marked.contains(">>>>>>> ") && marked.contains("A") && marked.contains("B"))
        try cli.ok(["-C", "b", "resolve", "n.txt", "--file", "marked.txt"])
        #expect(try cli.json(["-C", "b", "conflicts", "--json"]).isEmpty)
    }

    /// Each refusal: exit 1, one line on stderr, and main unchanged.
    @Test func badInputIsOneLineAndChangesNothing() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "dev", "--device", "D", "--remote", "cloud.git"])
        try cli.ok(["-C", "dev", "save", "a.txt"], input: "a\n")
        let before = try cli.tree("dev")
        let cases: [[String]] = [
            ["-C", "dev", "save", "absent.txt"],
            ["-C", "dev", "save", "b.txt", "--file", "no-such-file"],
            ["-C", "dev", "show", "a.txt", "--version", "0123456789abcdef0123456789abcdef01234567"],
            ["-C", "dev", "show", "missing.txt"],
            ["-C", "dev", "rm", "missing.txt"],
            ["-C", "dev", "resolve", "a.txt", "--latest"],
            ["-C", "dev", "resolve", "missing.txt", "--latest"],
            ["-C", "dev", "resolve", "a.txt", "--merge", "--policy", "no-such-policy"],
            ["-C", "dev", "resolve", "a.txt", "--file", "no-such-file"],
            ["-C", cli.folder, "ls"],
            ["clone", "git://127.0.0.1:9/nothing.git", "dev2"],
        ]
        for arguments in cases {
            let result = try cli.run(arguments)
            #expect(result.status == 1, "\(arguments): \(result.stderr)")
            #expect(result.stderr.hasPrefix("concord: ") && result.stderr.split(separator: "\n").count == 1, "\(arguments): \(result.stderr)")
            #expect(try cli.tree("dev") == before)
        }
        #expect(!FileManager.default.fileExists(atPath: "\(cli.folder)/dev2"))
    }

    @Test func aDocumentPathThatIsNotUTF8IsRefused() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "dev", "--device", "D"])
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = ["-c", "\"$0\" -C dev save \"$(printf 'bad\\377name')\" </dev/null 2>err.txt", CLI.binary]
        shell.currentDirectoryURL = URL(fileURLWithPath: cli.folder)
        try shell.run()
        shell.waitUntilExit()
        #expect(shell.terminationStatus == 2)
        let message = try String(contentsOfFile: "\(cli.folder)/err.txt", encoding: .utf8)
        #expect(message == "concord: invalid document path 'bad\u{FFFD}name': not valid UTF-8\n")
    }

    /// A bad document path is bad usage, refused while the command line is parsed: exit 2, one
    /// line naming the path and why (no usage), nothing on stdout (with --json too), nothing changed.
    @Test(arguments: [
        ("../escape.txt", "'..' leaves the container"),
        ("/etc/passwd", "an absolute path outside the container"),
        (".git/config", "'.git' would be read as '.git', which belongs to git"),
        (".concord/conflicts/x", "'.concord' holds Concord's own records"),
        ("notes/.concord-tmp-1-2", "names starting with '.concord-tmp-' are Concord's temporary files"),
    ])
    func aBadDocumentPathIsBadUsage(path: String, reason: String) throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "dev", "--device", "D", "--remote", "cloud.git"])
        try cli.ok(["-C", "dev", "save", "a.txt"], input: "a\n")
        try Data("local\n".utf8).write(to: URL(fileURLWithPath: "\(cli.folder)/local.txt"))
        let workTree = { try FileManager.default.subpathsOfDirectory(atPath: "\(cli.folder)/dev").filter { !$0.hasPrefix(".git") }.sorted() }
        let (before, filesBefore) = (try cli.tree("dev"), try workTree())
        let commands: [[String]] = [
            ["save", path, "--file", "a.txt"], ["rm", path], ["versions", path, "--json"], ["show", path], ["log", path],
            ["resolve", path, "--latest", "--json"], ["adopt", "../local.txt", path], ["evict", path, "../evicted.txt"],
        ]
        for command in commands {
            let result = try cli.run(["-C", "dev"] + command)
            #expect(result.status == 2, "\(command): \(result.stderr)")
            #expect(result.stderr == "concord: invalid document path '\(path)': \(reason)\n", "\(command)")
            #expect(result.stdout.isEmpty, "\(command): \(result.stdout)")
            #expect(try cli.tree("dev") == before)
        }
        #expect(FileManager.default.fileExists(atPath: "\(cli.folder)/local.txt"))
        #expect(!FileManager.default.fileExists(atPath: "\(cli.folder)/evicted.txt"))
        #expect(try workTree() == filesBefore)
        #expect(try String(contentsOfFile: "\(cli.folder)/dev/a.txt", encoding: .utf8) == "a\n")
    }

    @Test func initRefusesACloudThatAlreadyHoldsAContainer() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "one", "--remote", "cloud.git"])
        let second = try cli.run(["init", "two", "--remote", "cloud.git"])
        #expect(second.status == 1)
        #expect(second.stderr.contains("concord clone"))
        #expect(!FileManager.default.fileExists(atPath: "\(cli.folder)/two"))
    }

    /// A device starts with its cloud out of reach: the container is made, remembers its cloud,
    /// and the first sync that reaches it sends what was saved meanwhile. A cloud that turns out
    /// to hold another container is refused at that sync.
    @Test func initWithAnUnreachableCloudStartsOffline() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.git(["init", "--quiet", "--bare", "--initial-branch=main", "cloud.git"], in: ".")
        // The port stays bound (not listening) until the daemon starts: a test running at the same
        // time cannot start a server on it meanwhile.
        let reserved = try ReservedPort()
        let port = reserved.port
        let url = "git://127.0.0.1:\(port)/cloud.git"
        let created = try cli.run(["init", "phone", "--device", "iPhone", "--remote", url])
        #expect(created.status == 0)
        #expect(created.stdout.contains("Created container") && created.stdout.contains(url))
        #expect(created.stderr.contains("not reached") && created.stderr.contains("first sync"))
        try cli.ok(["-C", "phone", "save", "note.txt"], input: "written before the cloud was reached\n")
        let offline = try cli.run(["-C", "phone", "sync"])
        #expect(offline.status == 1 && offline.stderr.contains("offline"))
        // Another device starts offline against the same cloud: its first sync will find the
        // phone's container there.
        try cli.ok(["init", "laptop", "--device", "Laptop", "--remote", url])
        try cli.ok(["-C", "laptop", "save", "other.txt"], input: "another container\n")

        reserved.release()
        let daemon = try GitDaemon(base: cli.folder, port: port)
        defer { daemon.stop() }
        #expect(try cli.ok(["-C", "phone", "sync"]).contains("Sent"))
        try cli.ok(["clone", url, "tablet", "--device", "iPad"])
        #expect(try cli.ok(["-C", "tablet", "show", "note.txt"]) == "written before the cloud was reached\n")

        let refused = try cli.run(["-C", "laptop", "sync"])
        #expect(refused.status == 1 && refused.stderr.contains("unrelated history"))
        try cli.ok(["-C", "tablet", "sync"])
        #expect(!FileManager.default.fileExists(atPath: "\(cli.folder)/tablet/other.txt"))
    }

    /// Several processes saving in one container at once: the lock serialises them, every save lands.
    @Test func concurrentWritersNeverLoseASave() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "dev", "--device", "D"])
        let processes = try (0..<6).map { index -> Process in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: CLI.binary)
            process.arguments = ["-C", "\(cli.folder)/dev", "save", "doc\(index).txt", "--file", "-"]
            let pipe = Pipe()
            process.standardInput = pipe
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            pipe.fileHandleForWriting.write(Data("content \(index)\n".utf8))
            try pipe.fileHandleForWriting.close()
            return process
        }
        for process in processes {
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
        }
        for index in 0..<6 {
            #expect(try cli.ok(["-C", "dev", "show", "doc\(index).txt"]) == "content \(index)\n")
        }
        #expect(try cli.json(["-C", "dev", "ls", "--json"]).count == 6)
    }
}

@Suite struct KeyValueCommandTests {
    @Test func kvGetSetRemoveList() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "dev", "--device", "D"])
        try cli.ok(["-C", "dev", "kv", "set", "theme", "\"dark\""])
        try cli.ok(["-C", "dev", "kv", "set", "count", "3"])
        #expect(try cli.ok(["-C", "dev", "kv", "get", "theme"]) == "\"dark\"\n")
        let all = try JSONSerialization.jsonObject(with: Data(try cli.ok(["-C", "dev", "kv", "ls", "--json"]).utf8)) as? [String: Any]
        #expect(all?["count"] as? Int == 3)
        try cli.ok(["-C", "dev", "kv", "rm", "count"])
        #expect(try cli.run(["-C", "dev", "kv", "get", "count"]).status == 1)
        let bad = try cli.run(["-C", "dev", "kv", "set", "k", "{not json"])
        #expect(bad.status == 1 && bad.stderr.contains("not valid JSON"))
        let twice = try cli.run(["-C", "dev", "kv", "set", "k", #"{"a": 1, "a": 2}"#])
        #expect(twice.status == 1 && twice.stderr.contains("not valid JSON: line 1, column"), "\(twice.stderr)")
        #expect(try cli.run(["-C", "dev", "kv", "get", "k"]).status == 1)
        #expect(try cli.run(["-C", "dev", "kv", "set", "k"]).status == 2)
        // One text for a value however it was written: members in name order, no spaces.
        try cli.ok(["-C", "dev", "kv", "set", "layout", #"{ "z": [1, 2], "a/b": {"y": null, "x": true} }"#])
        #expect(try cli.ok(["-C", "dev", "kv", "get", "layout"]) == #"{"a/b":{"x":true,"y":null},"z":[1,2]}"# + "\n")
    }

    @Test func adoptAndEvict() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "dev", "--device", "D"])
        try "local".write(toFile: "\(cli.folder)/local.txt", atomically: true, encoding: .utf8)
        try cli.ok(["-C", "dev", "adopt", "\(cli.folder)/local.txt", "adopted.txt"])
        #expect(try cli.ok(["-C", "dev", "show", "adopted.txt"]) == "local")
        try cli.ok(["-C", "dev", "evict", "adopted.txt", "\(cli.folder)/out.txt"])
        #expect(try String(contentsOfFile: "\(cli.folder)/out.txt", encoding: .utf8) == "local")
        #expect(try cli.run(["-C", "dev", "show", "adopted.txt"]).status == 1)
    }
}
