import Foundation
import Testing

/// A commit message is input from the cloud: reading it costs time in proportion to its size
/// (never to its size squared), and a commit over the limit is refused whole (issue 36,
/// "Quadratic input"). Each command is given a bound in time (a debug build, a shared machine),
/// a check of behaviour, not a benchmark: before, 80,000 trailer groups took minutes.
@Suite struct HostileMessageTests {
    static let bound: Double = 60

    /// Devices `a` (which made the cloud and saved `note.txt`) and `b` (cloned, with an edit it
    /// has not synced), and a commit by someone else moved onto the cloud's `main` whose
    /// message is `message`; returns the fixture and the commit.
    func cloudWithCommit(message: String) throws -> (cli: CLI, commit: String) {
        let cli = try CLI()
        try cli.ok(["init", "a", "--device", "A", "--remote", "cloud.git"])
        try cli.ok(["-C", "a", "save", "note.txt"], input: "hello\n")
        try cli.ok(["-C", "a", "sync"])
        try cli.ok(["clone", "cloud.git", "b", "--device", "B"])
        try cli.ok(["-C", "b", "save", "other.txt"], input: "not synced yet\n")
        let cloud = HostileCloud(path: "\(cli.folder)/cloud.git")
        let parent = try cloud.main()
        let commit = try cloud.commit(tree: cloud.git(["rev-parse", "\(parent)^{tree}"]), parents: [parent], message: message)
        try cloud.setMain(commit)
        return (cli, commit)
    }

    /// Runs `concord arguments` (absolute paths) and waits at most ``bound`` seconds: the exit
    /// status, nil when it was still running (it is killed then), and what it printed on stderr.
    func runBounded(_ cli: CLI, _ arguments: [String]) throws -> (status: Int32?, stderr: String, seconds: Double) {
        let errors = "\(cli.folder)/stderr-\(UUID().uuidString)"
        let start = Date()
        let process = try ChildProcess([CLI.binary] + arguments, stdout: "/dev/null", stderr: errors)
        let status = process.exitStatus(within: Self.bound)
        if status == nil { process.kill9() }
        let seconds = Date().timeIntervalSince(start)
        return (status, (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "", seconds)
    }

    /// 80,000 `Concord-Document` groups, each resolving a version of a document that does not
    /// exist (8 MB, under the limit): read once, each group once.
    static func manyGroups() -> String {
        var message = "Resolve many documents\n\n"
        for index in 0..<80_000 {
            message += "Concord-Document: fake/\(index).txt\nConcord-Resolves: \(String(format: "%040x", index))\n"
        }
        return message + "Concord-Device: mallory\n"
    }

    @Test func eightyThousandTrailerGroupsAreReadInTimeProportionalToThem() throws {
        let (cli, commit) = try cloudWithCommit(message: Self.manyGroups())
        defer { cli.remove() }
        let sync = try runBounded(cli, ["-C", "\(cli.folder)/b", "sync"])
        #expect(sync.status == 0, "sync: \(sync.status.map(String.init) ?? "still running after \(Self.bound) s") \(sync.stderr)")
        #expect(try cli.git(["rev-list", "--count", "main"], in: "b") == "5", "the integration has both histories")
        #expect(try cli.git(["rev-list", "main"], in: "b").contains(commit))
        let clone = try runBounded(cli, ["clone", "\(cli.folder)/cloud.git", "\(cli.folder)/c", "--device", "C"])
        #expect(clone.status == 0, "clone: \(clone.status.map(String.init) ?? "still running after \(Self.bound) s") \(clone.stderr)")
        try Data("edited\n".utf8).write(to: URL(fileURLWithPath: "\(cli.folder)/c/note.txt"))
        let save = try runBounded(cli, ["-C", "\(cli.folder)/c", "save", "note.txt"])
        #expect(save.status == 0, "save: \(save.status.map(String.init) ?? "still running after \(Self.bound) s") \(save.stderr)")
        for device in ["b", "c"] {
            #expect(try cli.json(["-C", device, "versions", "note.txt", "--all", "--json"]).count == (device == "c" ? 2 : 1))
            #expect(try cli.ok(["-C", device, "ls"]).split(separator: "\n").count == 2, "the groups name no document in the tree")
            #expect(try runTool("/usr/bin/git", ["-C", "\(cli.folder)/\(device)", "fsck", "--no-dangling", "--no-progress"]).isEmpty)
        }
    }

    @Test func aCommitOverTheLimitIsRefusedInOneLine() throws {
        let filler = String(repeating: "Concord-Document: x\n", count: (17 << 20) / 20)
        let (cli, commit) = try cloudWithCommit(message: "Too long\n\n" + filler)
        defer { cli.remove() }
        let main = try cli.git(["rev-parse", "main"], in: "b")
        let sync = try runBounded(cli, ["-C", "\(cli.folder)/b", "sync"])
        let line = sync.stderr.trimmingCharacters(in: .newlines)
        #expect(sync.status == 1 && !line.contains("\n"), "\(sync.status.map(String.init) ?? "still running") \(line)")
        #expect(line.contains("refused the cloud's commit \(commit.prefix(7))") && line.contains("over the limit of 16 MB for one commit"), "\(line)")
        #expect(try cli.git(["rev-parse", "main"], in: "b") == main)
        #expect(try cli.git(["rev-parse", "origin/main"], in: "b") == cli.git(["rev-parse", "main~1"], in: "b"))
        let clone = try runBounded(cli, ["clone", "\(cli.folder)/cloud.git", "\(cli.folder)/c"])
        #expect(clone.status == 1 && clone.stderr.contains("refused the cloud's commit \(commit.prefix(7))"), "\(clone.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(cli.folder)/c"))
    }
}
