import Foundation
import Testing

/// `concord diff`: each version in contention against the common ancestor, or two versions.
@Suite struct DiffTests {
    /// Three devices (iPhone, iPad, Mac) change one line each of `note.txt` offline; every device syncs twice.
    private func threeWay(_ cli: CLI) throws {
        try cli.ok(["init", "a", "--device", "iPhone", "--remote", "cloud.git"])
        try cli.ok(["clone", "cloud.git", "b", "--device", "iPad"])
        try cli.ok(["clone", "cloud.git", "c", "--device", "Mac"])
        try cli.ok(["-C", "a", "save", "note.txt"], input: "one\n-\n-\ntwo\n-\n-\nthree\n")
        try cli.ok(["-C", "a", "sync"])
        for device in ["b", "c"] { try cli.ok(["-C", device, "sync"]) }
        try cli.ok(["-C", "a", "save", "note.txt"], input: "ONE\n-\n-\ntwo\n-\n-\nthree\n")
        try cli.ok(["-C", "b", "save", "note.txt"], input: "one\n-\n-\nTWO\n-\n-\nthree\n")
        try cli.ok(["-C", "c", "save", "note.txt"], input: "one\n-\n-\ntwo\n-\n-\nthree\n")
        try cli.ok(["-C", "c", "save", "note.txt"], input: "one\n-\n-\ntwo\n-\n-\nTHREE\n")
        for _ in 0..<2 {
            for device in ["a", "b", "c"] { try cli.ok(["-C", device, "sync"]) }
        }
    }

    /// `versions --json`'s versions of `note.txt` on device a, by device name.
    private func versions(_ cli: CLI) throws -> [String: [String: Any]] {
        Dictionary(uniqueKeysWithValues: try cli.json(["-C", "a", "versions", "note.txt", "--json"]).map { ($0["device"] as? String ?? "", $0) })
    }

    private func label(_ version: [String: Any]?, _ role: String) -> String {
        "\(role) \((version?["id"] as? String ?? "").prefix(7)) (\(version?["device"] as? String ?? "")"
    }

    /// `versions` sums up each other version's lines against the current one, a document with
    /// CRLF line ends too (split by characters, where `\r\n` is one, it counted as one line).
    @Test func versionsCountTheLinesOfADocumentWithCRLFLineEnds() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "a", "--device", "iPhone", "--remote", "cloud.git"])
        try cli.ok(["clone", "cloud.git", "b", "--device", "iPad"])
        try cli.diverge("notes.txt", base: "l1\r\nl2\r\nl3\r\n", a: "l1\r\nx2\r\nx3\r\n", b: "l1\r\ny2\r\nl3\r\n")
        try cli.ok(["-C", "a", "sync"])
        let listing = try cli.ok(["-C", "a", "versions", "notes.txt"])
        #expect(listing.contains("+2 -2 lines vs current"), "\(listing)")
    }

    @Test func eachVersionInContentionIsShownAgainstTheCommonAncestor() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try threeWay(cli)
        let byDevice = try versions(cli)
        let current = try #require(byDevice.values.first { $0["current"] as? Bool == true })
        let ancestorID = try #require(try cli.json(["-C", "a", "versions", "note.txt", "--all", "--json"]).last?["id"] as? String)
        let output = try cli.ok(["-C", "a", "diff", "note.txt"])
        let files = output.components(separatedBy: "--- a/note.txt\tancestor \(ancestorID.prefix(7)) (iPhone, ").dropFirst()
        #expect(files.count == 3, "\(output)")
        #expect(files.first?.contains("+++ b/note.txt\t\(label(current, "current"))") == true, "\(output)")
        for (device, line) in [("iPhone", "ONE"), ("iPad", "TWO"), ("Mac", "THREE")] {
            let role = byDevice[device]?["current"] as? Bool == true ? "current" : "conflict"
            let shown = try #require(files.first { $0.contains("+++ b/note.txt\t\(label(byDevice[device], role))") }, "\(device): \(output)")
            #expect(shown.contains("-\(line.lowercased())\n+\(line)\n"), "\(shown)")
            #expect(shown.split(separator: "\n").filter { $0.hasPrefix("+") && !$0.hasPrefix("+++") }.count == 1, "only \(device)'s line is changed: \(shown)")
        }
        #expect(!output.contains("\u{1B}["), "plain when piped")
    }

    @Test func twoVersionsAreComparedWithEachOther() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try threeWay(cli)
        let byDevice = try versions(cli)
        let phone = try #require(byDevice["iPhone"]?["id"] as? String), tablet = try #require(byDevice["iPad"]?["id"] as? String)
        let output = try cli.ok(["-C", "a", "diff", "note.txt", "--version", String(phone.prefix(7)), "--version", String(tablet.prefix(7))])
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false).dropFirst(2)
        #expect(Array(lines) == ["@@ -1,7 +1,7 @@", "-ONE", "+one", " -", " -", "-two", "+TWO", " -", " -", " three", ""], "\(output)")
        #expect(output.hasPrefix("--- a/note.txt\tconflict \(phone.prefix(7)) (iPhone, ") || output.hasPrefix("--- a/note.txt\tcurrent \(phone.prefix(7)) (iPhone, "))
    }

    @Test func jsonGivesTheAncestorAndEachComparisonsHunks() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try threeWay(cli)
        let output = try cli.ok(["-C", "a", "diff", "note.txt", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        #expect(object["document"] as? String == "note.txt")
        #expect((object["ancestor"] as? [String: Any])?["device"] as? String == "iPhone")
        let comparisons = try #require(object["comparisons"] as? [[String: Any]])
        #expect(comparisons.count == 3)
        #expect(comparisons.map { $0["oldRole"] as? String } == ["ancestor", "ancestor", "ancestor"])
        #expect(comparisons.first?["newRole"] as? String == "current")
        for comparison in comparisons {
            let file = try #require((comparison["files"] as? [[String: Any]])?.first)
            #expect(file["added"] as? Int == 1 && file["removed"] as? Int == 1)
            let lines = ((file["hunks"] as? [[String: Any]])?.first?["lines"] as? [[String: Any]]) ?? []
            #expect(lines.filter { $0["kind"] as? String == "added" }.count == 1)
        }
    }

    @Test func colouredOnATerminal() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try threeWay(cli)
        // `script` gives the command a terminal for its standard output.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", "'\(CLI.binary)' -C '\(cli.folder)/a' diff note.txt", "/dev/null"]
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = nil
        environment["TERM"] = "xterm"
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(output.contains("\u{1B}[31m-one\u{1B}[0m") && output.contains("\u{1B}[32m+ONE\u{1B}[0m"), "\(output)")
    }

    /// A package is compared file by file; a deletion against the ancestor removes every line.
    @Test func aPackageIsComparedFileByFileAndADeletionRemovesEveryLine() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "a", "--device", "iPhone", "--remote", "cloud.git", "--package", "*.note"])
        try cli.ok(["clone", "cloud.git", "b", "--device", "iPad"])
        try cli.write("a/trip.note/body.txt", "Lisbon\n")
        try cli.write("a/trip.note/list.txt", "passport\n")
        try cli.ok(["-C", "a", "save", "trip.note"])
        try cli.ok(["-C", "a", "save", "todo.txt"], input: "pack\n")
        try cli.ok(["-C", "a", "sync"])
        try cli.ok(["-C", "b", "sync"])
        try cli.write("a/trip.note/body.txt", "Lisbon and Porto\n")
        try cli.ok(["-C", "a", "save", "trip.note"])
        try cli.write("b/trip.note/list.txt", "passport\ntickets\n")
        try cli.ok(["-C", "b", "save", "trip.note"])
        try cli.ok(["-C", "a", "save", "todo.txt"], input: "pack\nleave\n")
        try cli.ok(["-C", "b", "rm", "todo.txt"])
        for device in ["a", "b", "a"] { try cli.ok(["-C", device, "sync"]) }
        let package = try cli.ok(["-C", "a", "diff", "trip.note"])
        #expect(package.contains("--- a/trip.note/body.txt\t") && package.contains("-Lisbon\n+Lisbon and Porto\n"), "\(package)")
        #expect(package.contains("--- a/trip.note/list.txt\t") && package.contains(" passport\n+tickets\n"), "\(package)")
        #expect(package.split(separator: "\n").filter { $0.hasPrefix("--- ") }.count == 2, "one changed file for each of the two versions: \(package)")
        let deleted = try cli.ok(["-C", "a", "diff", "todo.txt"])
        #expect(deleted.contains("+++ /dev/null\t") && deleted.contains("-pack\n"), "the deletion removes every line: \(deleted)")
        #expect(deleted.contains("-pack\n+pack\n+leave\n") || deleted.contains(" pack\n+leave\n"), "the edit: \(deleted)")
    }

    @Test func missingDocumentsUnknownVersionsBinaryContentAndCalmDocumentsAreOneLineErrors() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try threeWay(cli)
        try cli.ok(["-C", "a", "save", "calm.txt"], input: "calm\n")
        let cases: [([String], String)] = [
            (["diff", "absent.txt"], "concord: no document 'absent.txt' in this container\n"),
            (["diff", "note.txt", "--version", "abcdef0"], "concord: 'abcdef0' is not a version of 'note.txt'\n"),
            (["diff", "calm.txt"], "concord: 'calm.txt' is not in conflict: compare two of its versions with --version ID --version ID\n"),
        ]
        for (arguments, message) in cases {
            let result = try cli.run(["-C", "a"] + arguments)
            #expect(result.status == 1 && result.stderr == message && result.stdout.isEmpty, "\(arguments): \(result)")
        }
        try cli.ok(["-C", "a", "save", "picture.png"], input: "\u{0}\u{1}binary\u{0}")
        let first = try #require(try cli.json(["-C", "a", "versions", "picture.png", "--json"]).first?["id"] as? String)
        try cli.ok(["-C", "a", "save", "picture.png"], input: "text now\n")
        let refused = try cli.run(["-C", "a", "diff", "picture.png", "--version", String(first.prefix(7))])
        #expect(
            refused.status == 1 && refused.stderr.hasPrefix("concord: 'picture.png' is binary in version \(first.prefix(7)) (")
                && refused.stderr.hasSuffix(" bytes): a line diff compares text; see 'concord versions picture.png'\n"), "\(refused.stderr)")
        #expect(refused.stderr.split(separator: "\n").count == 1)
        let tooMany = try cli.run(["-C", "a", "diff", "note.txt", "--version", "a", "--version", "b", "--version", "c"])
        #expect(tooMany.status == 2)
    }
}
