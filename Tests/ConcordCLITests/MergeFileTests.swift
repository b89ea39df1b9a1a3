import Foundation
import Testing

@Suite struct MergeFileTests {
    func write(_ cli: CLI, _ name: String, _ text: String) throws {
        try text.write(toFile: "\(cli.folder)/\(name)", atomically: true, encoding: .utf8)
    }

    func read(_ cli: CLI, _ name: String) throws -> String {
        try String(contentsOfFile: "\(cli.folder)/\(name)", encoding: .utf8)
    }

    @Test func mergesIntoCurrentAndFollowsTheMergeDriverContract() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try write(cli, "base.json", "{\n  \"name\": \"app\",\n  \"version\": 1\n}\n")
        try write(cli, "current.json", "{\n  \"name\": \"app\",\n  \"version\": 1,\n  \"a\": true\n}\n")
        try write(cli, "other.json", "{\n  \"name\": \"app\",\n  \"version\": 1,\n  \"b\": true\n}\n")
        try cli.ok(["merge-file", "--policy", "json", "base.json", "current.json", "other.json"])
        let merged = try JSONSerialization.jsonObject(with: Data(try read(cli, "current.json").utf8)) as? [String: Any]
        #expect(merged?["a"] as? Bool == true && merged?["b"] as? Bool == true)

        try write(cli, "base.txt", "one\n")
        try write(cli, "current.txt", "two\n")
        try write(cli, "other.txt", "three\n")
        let conflict = try cli.run(["merge-file", "--policy", "text", "base.txt", "current.txt", "other.txt"])
        #expect(conflict.status == 1)
        #expect(try read(cli, "current.txt").contains("<<<<<<<"))

        #expect(try cli.run(["merge-file", "--policy", "nope", "base.txt", "current.txt", "other.txt"]).status == 2)
        let before = try read(cli, "current.txt")
        let missing = try cli.run(["merge-file", "--policy", "text", "missing.txt", "current.txt", "other.txt"])
        #expect(missing.status == 2)
        #expect(missing.stderr.hasPrefix("concord merge-file: missing.txt: cannot be read: "), "\(missing.stderr)")
        #expect(missing.stderr.split(separator: "\n").count == 1, "\(missing.stderr)")
        #expect(try read(cli, "current.txt") == before)
        #expect(try cli.ok(["merge-file", "--help"]).contains("merge driver"))
    }

    /// json takes git's clean line merge where its own merge would need a person, and says so.
    @Test func saysWhenItTookGitsLineMerge() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try write(cli, "base.json", "[\n  \"a\",\n  \"b\",\n  \"c\",\n  \"d\"\n]\n")
        try write(cli, "current.json", "[\n  \"x\",\n  \"a\",\n  \"b\",\n  \"c\",\n  \"d\"\n]\n")
        try write(cli, "other.json", "[\n  \"a\",\n  \"b\",\n  \"c\",\n  \"d\",\n  \"x\"\n]\n")
        let result = try cli.run(["merge-file", "--policy", "json", "--path", "list.json", "base.json", "current.json", "other.json"])
        #expect(result.status == 0)
        #expect(result.stderr.hasPrefix("concord merge-file: list.json: taken from git's line merge"))
        #expect(try read(cli, "current.json") == "[\n  \"x\",\n  \"a\",\n  \"b\",\n  \"c\",\n  \"d\",\n  \"x\"\n]\n")
    }

    /// `.gitattributes` `merge=concord-json` in a plain git repository.
    @Test func worksAsAGitMergeDriver() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let repository = "\(cli.folder)/repo"
        func git(_ arguments: String...) throws -> Int32 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/git")
            process.arguments = ["-C", repository, "-c", "user.name=t", "-c", "user.email=t@example.invalid"] + arguments
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            return process.terminationStatus
        }
        try FileManager.default.createDirectory(atPath: repository, withIntermediateDirectories: true)
        #expect(try git("init", "-q", "--initial-branch=main") == 0)
        #expect(try git("config", "merge.concord-json.driver", "\(CLI.binary) merge-file --policy json --path %P %O %A %B") == 0)
        try "*.json merge=concord-json\n".write(toFile: "\(repository)/.gitattributes", atomically: true, encoding: .utf8)
        try "{\n  \"name\": \"app\",\n  \"version\": \"1.0.0\"\n}\n".write(toFile: "\(repository)/package.json", atomically: true, encoding: .utf8)
        #expect(try git("add", "-A") == 0)
        #expect(try git("commit", "-qm", "base") == 0)
        #expect(try git("checkout", "-qb", "feature") == 0)
        try "{\n  \"name\": \"app\",\n  \"version\": \"1.0.0\",\n  \"license\": \"MIT\"\n}\n".write(toFile: "\(repository)/package.json", atomically: true, encoding: .utf8)
        #expect(try git("commit", "-qam", "license") == 0)
        #expect(try git("checkout", "-q", "main") == 0)
        try "{\n  \"name\": \"app\",\n  \"private\": true,\n  \"version\": \"1.0.0\"\n}\n".write(toFile: "\(repository)/package.json", atomically: true, encoding: .utf8)
        #expect(try git("commit", "-qam", "private") == 0)
        #expect(try git("merge", "-q", "--no-edit", "feature") == 0)
        let merged = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(repository)/package.json"))) as? [String: Any]
        #expect(merged?["license"] as? String == "MIT" && merged?["private"] as? Bool == true)
    }
}

@Suite struct PoliciesCommandTests {
    /// `.concord/policies` chooses the policy of `resolve --merge`: a union rule merges an append-only log.
    @Test func aPolicyRuleChoosesTheMerge() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "a", "--device", "A", "--remote", "cloud.git"])
        try cli.ok(["-C", "a", "policies", "--file", "-"], input: "*.log union\n")
        #expect(
            try cli.ok(["-C", "a", "policies"])
                == "*.log union\n# nothing resolves on its own: end a rule with 'auto' (PATTERN POLICY-NAME auto) to let sync resolve it\n")
        let bad = try cli.run(["-C", "a", "policies", "--file", "-"], input: "*.log no-such-policy\n")
        #expect(bad.status == 1 && bad.stderr.contains("line 1"))
        try cli.ok(["clone", "cloud.git", "b", "--device", "B"])
        try cli.diverge("events.log", base: "start\n", a: "start\nA did this\n", b: "start\nB did that\n")
        let resolved = try cli.ok(["-C", "b", "resolve", "events.log", "--merge"])
        #expect(resolved.contains("union"))
        let merged = try cli.ok(["-C", "b", "show", "events.log"])
        #expect(merged.contains("A did this") && merged.contains("B did that"))
    }
}
