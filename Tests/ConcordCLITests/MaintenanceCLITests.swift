import Foundation
import Testing

/// Long use: a container and its local cloud keep few packs on their own, and `gc` removes
/// what nothing reaches without ever removing a version.
@Suite struct MaintenanceCLITests {
    func packCount(_ cli: CLI, _ path: String) throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "\(cli.folder)/\(path)/objects/pack").filter { $0.hasSuffix(".pack") }.count
    }

    @Test func packsStayFewOverManyRoundsAndGcLosesNoVersion() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "a", "--device", "A", "--remote", "cloud.git"])
        try cli.ok(["clone", "cloud.git", "b", "--device", "B"])
        for round in 1...40 {
            try cli.ok(["-C", "a", "save", "a\(round % 5).txt"], input: "a round \(round)\n")
            try cli.ok(["-C", "a", "sync"])
            try cli.ok(["-C", "b", "save", "b\(round % 5).txt"], input: "b round \(round)\n")
            try cli.ok(["-C", "b", "sync"])
        }
        // Without maintenance: about 80 packs on each device and in the cloud.
        #expect(try packCount(cli, "a/.git") <= 10)
        #expect(try packCount(cli, "b/.git") <= 10)
        #expect(try packCount(cli, "cloud.git") <= 10)
        let versionsBefore = try cli.json(["-C", "a", "versions", "a3.txt", "--all", "--json"]).compactMap { $0["id"] as? String }
        #expect(versionsBefore.count == 8)

        let gc = try cli.ok(["-C", "a", "gc"])
        #expect(gc.contains("into 1"), "\(gc)")
        #expect(try packCount(cli, "a/.git") == 1)
        #expect(try cli.git(["fsck", "--no-dangling"], in: "a").isEmpty)
        let versionsAfter = try cli.json(["-C", "a", "versions", "a3.txt", "--all", "--json"]).compactMap { $0["id"] as? String }
        #expect(versionsAfter == versionsBefore)
        for version in versionsAfter { try cli.ok(["-C", "a", "show", "a3.txt", "--version", version]) }
        try cli.ok(["-C", "a", "save", "after.txt"], input: "after gc\n")
        try cli.ok(["-C", "a", "sync"])
        try cli.ok(["-C", "b", "sync"])
        #expect(try cli.tree("a") == cli.tree("b"))
    }
}
