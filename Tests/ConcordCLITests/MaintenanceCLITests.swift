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

    /// The largest pack file of a repository's object folder.
    func largestPack(_ cli: CLI, _ path: String) throws -> String? {
        let folder = "\(cli.folder)/\(path)/objects/pack"
        let sizes = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".pack") }.map { name in
            (name, try FileManager.default.attributesOfItem(atPath: "\(folder)/\(name)")[.size] as? Int ?? 0)
        }
        return sizes.max { $0.1 < $1.1 }?.0
    }

    /// Writes proportional to the change (issue 38): a pack holding a 20 MB file is not rolled
    /// up again by the small packs of later one-line edits, on the device that received it nor
    /// in the cloud (counted in objects, the third small pack pulled it into a roll-up, and a
    /// device wrote 20 MB after a one-line edit); the small packs still roll up.
    @Test func aPackOfALargeFileIsNotRewrittenByLaterSmallEdits() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "a", "--device", "A", "--remote", "cloud.git"])
        try cli.ok(["clone", "cloud.git", "b", "--device", "B"])
        var generator = SystemRandomNumberGenerator()
        let large = Data((0..<(20 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        try large.write(to: URL(fileURLWithPath: "\(cli.folder)/a/video.bin"))
        try cli.ok(["-C", "a", "save", "video.bin"])
        try cli.ok(["-C", "a", "sync"])
        try cli.ok(["-C", "b", "sync"])
        let cloudPack = try largestPack(cli, "cloud.git"), devicePack = try largestPack(cli, "b/.git")
        for round in 1...12 {
            try cli.ok(["-C", "a", "save", "notes.txt"], input: "a round \(round)\n")
            try cli.ok(["-C", "a", "sync"])
            try cli.ok(["-C", "b", "save", "todo.txt"], input: "b round \(round)\n")
            try cli.ok(["-C", "b", "sync"])
        }
        #expect(try largestPack(cli, "cloud.git") == cloudPack)
        #expect(try largestPack(cli, "b/.git") == devicePack)
        #expect(try packCount(cli, "b/.git") <= 8)
        #expect(try packCount(cli, "cloud.git") <= 8)
        #expect(FileManager.default.contents(atPath: "\(cli.folder)/b/video.bin") == large)
    }

    /// A large file saved stays a loose file of its own: the roll-ups that small edits cause
    /// pack only small loose objects (they pulled the 30 MB attachments of a month of notes
    /// into a 270 MiB pack on the first edit); gc packs it.
    @Test func aLargeFilesLooseObjectIsNotRolledUpBySmallEdits() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "a", "--device", "A", "--remote", "cloud.git"])
        try cli.ok(["clone", "cloud.git", "b", "--device", "B"])
        var generator = SystemRandomNumberGenerator()
        let large = Data((0..<(4 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        try large.write(to: URL(fileURLWithPath: "\(cli.folder)/a/photo.jpg"))
        try cli.ok(["-C", "a", "save", "photo.jpg"])
        let id = try cli.git(["rev-parse", "main:photo.jpg"], in: "a").trimmingCharacters(in: .whitespacesAndNewlines)
        let loose = "\(cli.folder)/a/.git/objects/\(id.prefix(2))/\(id.dropFirst(2))"
        #expect(FileManager.default.fileExists(atPath: loose))
        for round in 1...12 {
            try cli.ok(["-C", "a", "save", "notes.txt"], input: "a round \(round)\n")
            try cli.ok(["-C", "a", "sync"])
            try cli.ok(["-C", "b", "save", "todo.txt"], input: "b round \(round)\n")
            try cli.ok(["-C", "b", "sync"])
        }
        #expect(FileManager.default.fileExists(atPath: loose), "the large file's object was rewritten into a pack")
        #expect(try packCount(cli, "a/.git") <= 8)
        try cli.ok(["-C", "a", "gc"])
        #expect(!FileManager.default.fileExists(atPath: loose))
        try cli.ok(["-C", "a", "show", "photo.jpg"])
    }
}
