import Foundation
import Testing

/// Names that differ only by Unicode normalization (`café.txt` with a precomposed `é`, NFC, and
/// with `e` and a combining accent, NFD) are two names in git and on Linux, and two documents
/// in Concord: no command mixes their histories or drops one (issue 36, "Names"). Swift's
/// `String ==` takes them for one, so every comparison here is of bytes.
@Suite struct UnicodeTwinTests {
    static let composed = "caf\u{E9}.txt"
    static let decomposed = "cafe\u{301}.txt"

    /// The bytes of `text`, which tell the two forms apart where `String ==` does not.
    func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// The names of the root of `device`'s `main` (raw bytes, not quoted by git).
    func rootNames(_ cli: CLI, _ device: String) throws -> [[UInt8]] {
        try cli.git(["ls-tree", "-z", "--name-only", "main"], in: device).split(separator: "\0").map { bytes(String($0)) }
    }

    /// The ids `versions DOC --all --json` lists.
    func versionIDs(_ cli: CLI, _ device: String, _ document: String) throws -> [String] {
        try cli.json(["-C", device, "versions", document, "--all", "--json"]).compactMap { $0["id"] as? String }
    }

    /// A cloud where device `a` saved the NFC form, device `b` cloned it, then another device
    /// (crafted with git plumbing: Concord no longer creates a twin) saved the NFD form; `a`
    /// then saved an edit of the NFC form that it has not synced.
    func twinsArriving() throws -> (cli: CLI, composedSaves: [String], decomposedSave: String) {
        let cli = try CLI()
        try cli.ok(["init", "a", "--device", "A", "--remote", "cloud.git"])
        try cli.ok(["-C", "a", "save", Self.composed], input: "composed 1\n")
        let first = try cli.git(["rev-parse", "main"], in: "a")
        try cli.ok(["-C", "a", "sync"])
        try cli.ok(["clone", "cloud.git", "b", "--device", "B"])
        let cloud = HostileCloud(path: "\(cli.folder)/cloud.git")
        let now = Int(Date().timeIntervalSince1970)
        let message = "Add \(Self.decomposed)\n\nConcord-Document: \(Self.decomposed)\nConcord-Device: third-device\nConcord-Clock: \(now * 1000).0\n"
        let decomposedSave = try cloud.push(
            adding: [.init("100644", Self.decomposed, cloud.blob("decomposed 1\n"))], time: "\(now)", message: message, author: "C")
        try cli.ok(["-C", "a", "save", Self.composed], input: "composed 2\n")
        return (cli, [first, try cli.git(["rev-parse", "main"], in: "a")], decomposedSave)
    }

    @Test func anIntegrationKeepsBothFormsWithTheirOwnHistories() throws {
        let (cli, composedSaves, decomposedSave) = try twinsArriving()
        defer { cli.remove() }
        #expect(composedSaves.count == 2)
        try cli.ok(["-C", "a", "sync"])
        try cli.ok(["-C", "b", "sync"])
        #expect(try cli.tree("a") == cli.tree("b"))
        for device in ["a", "b"] {
            let names = try rootNames(cli, device)
            #expect(names.contains(bytes(Self.composed)) && names.contains(bytes(Self.decomposed)), "\(device): \(names)")
            #expect(try bytes(cli.ok(["-C", device, "show", Self.composed])) == bytes("composed 2\n"))
            #expect(try bytes(cli.ok(["-C", device, "show", Self.decomposed])) == bytes("decomposed 1\n"))
            #expect(try bytes(String(contentsOfFile: "\(cli.folder)/\(device)/\(Self.decomposed)", encoding: .utf8)) == bytes("decomposed 1\n"))
            // Once from the history index, once by walking the history without it.
            for pass in ["indexed", "walked"] {
                if pass == "walked" { try FileManager.default.removeItem(atPath: "\(cli.folder)/\(device)/.git/concord/history") }
                #expect(try Set(versionIDs(cli, device, Self.composed)) == Set(composedSaves), "\(device), \(pass)")
                #expect(try versionIDs(cli, device, Self.decomposed) == [decomposedSave], "\(device), \(pass)")
                let current = try cli.json(["-C", device, "versions", Self.decomposed, "--json"])
                #expect(current.count == 1 && current.first?["id"] as? String == decomposedSave, "\(device), \(pass)")
                let log = try cli.ok(["-C", device, "log", Self.decomposed])
                #expect(log.split(separator: "\n").count == 1 && log.hasPrefix(String(decomposedSave.prefix(7))), "\(device), \(pass): \(log)")
                #expect(try cli.ok(["-C", device, "log", Self.composed]).split(separator: "\n").count == 2, "\(device), \(pass)")
            }
        }
        #expect(try cli.json(["-C", "a", "conflicts", "--json"]).isEmpty)
    }

    @Test func aConflictOnOneFormIsResolvedWithoutTouchingTheOther() throws {
        let (cli, composedSaves, decomposedSave) = try twinsArriving()
        defer { cli.remove() }
        try cli.ok(["-C", "a", "sync"])
        try cli.ok(["-C", "b", "sync"])
        try cli.ok(["-C", "a", "save", Self.decomposed], input: "decomposed from a\n")
        try cli.ok(["-C", "b", "save", Self.decomposed], input: "decomposed from b\n")
        try cli.ok(["-C", "a", "sync"])
        try cli.ok(["-C", "b", "sync"])
        let conflicts = try cli.json(["-C", "b", "conflicts", "--json"])
        #expect(conflicts.count == 1 && bytes(conflicts.first?["document"] as? String ?? "") == bytes(Self.decomposed), "\(conflicts)")
        #expect(try cli.json(["-C", "b", "versions", Self.decomposed, "--json"]).count == 2)
        #expect(try cli.json(["-C", "b", "versions", Self.composed, "--json"]).count == 1)
        try cli.ok(["-C", "b", "resolve", Self.decomposed, "--latest"])
        try cli.ok(["-C", "b", "sync"])
        try cli.ok(["-C", "a", "sync"])
        for device in ["a", "b"] {
            #expect(try cli.json(["-C", device, "conflicts", "--json"]).isEmpty)
            #expect(try Set(versionIDs(cli, device, Self.composed)) == Set(composedSaves), "\(device)")
            #expect(try versionIDs(cli, device, Self.decomposed).count == 4, "\(device): the crafted save, both edits, the resolution")
            #expect(try versionIDs(cli, device, Self.decomposed).contains(decomposedSave))
            #expect(try bytes(cli.ok(["-C", device, "show", Self.composed])) == bytes("composed 2\n"))
            let names = try rootNames(cli, device)
            #expect(names.contains(bytes(Self.composed)) && names.contains(bytes(Self.decomposed)), "\(device): \(names)")
        }
        #expect(try cli.tree("a") == cli.tree("b"))
    }

    /// Two folders whose names differ only by normalization, both arriving from the cloud, are
    /// written as two folders, each with its own file (a work-tree batch once took the second
    /// folder for the first and failed to put its file in place).
    @Test func twinFoldersFromTheCloudAreTwoFolders() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let composedFolder = "caf\u{E9}", decomposedFolder = "cafe\u{301}"
        try cli.ok(["init", "a", "--device", "A", "--remote", "cloud.git"])
        try cli.ok(["-C", "a", "save", "\(composedFolder)/one.txt"], input: "one\n")
        try cli.ok(["-C", "a", "sync"])
        let cloud = HostileCloud(path: "\(cli.folder)/cloud.git")
        let folder = try cloud.tree([.init("100644", "two.txt", cloud.blob("two\n"))])
        let message = "Add \(decomposedFolder)/two.txt\n\nConcord-Document: \(decomposedFolder)/two.txt\nConcord-Device: third-device\n"
        try cloud.push(adding: [.init("40000", decomposedFolder, folder)], time: "\(Int(Date().timeIntervalSince1970))", message: message, author: "C")
        try cli.ok(["clone", "cloud.git", "b", "--device", "B"])
        try cli.ok(["-C", "a", "sync"])
        for device in ["a", "b"] {
            for (name, content) in [("\(composedFolder)/one.txt", "one\n"), ("\(decomposedFolder)/two.txt", "two\n")] {
                #expect(try bytes(String(contentsOfFile: "\(cli.folder)/\(device)/\(name)", encoding: .utf8)) == bytes(content), "\(device): \(name)")
                #expect(try bytes(cli.ok(["-C", device, "show", name])) == bytes(content), "\(device): \(name)")
                #expect(try versionIDs(cli, device, name).count == 1, "\(device): \(name)")
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: "\(cli.folder)/\(device)/\(composedFolder)").map(bytes) == [bytes("one.txt")])
        }
    }

    @Test(arguments: [decomposed, "Caf\u{E9}.txt", "CAFE\u{301}.TXT"])
    func aNewTwinOfADocumentIsRefusedAndNothingChanges(_ twin: String) throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "a", "--remote", "cloud.git"])
        try cli.ok(["-C", "a", "save", Self.composed], input: "one\n")
        let main = try cli.git(["rev-parse", "main"], in: "a")
        let refused = try cli.run(["-C", "a", "save", twin], input: "two\n")
        #expect(refused.status == 1 && refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains(bytes(twin) == bytes(Self.decomposed) ? "Unicode normalization" : "only by case"), "\(refused.stderr)")
        #expect(try cli.git(["rev-parse", "main"], in: "a") == main)
        let names = try FileManager.default.contentsOfDirectory(atPath: "\(cli.folder)/a").map(bytes)
        #expect(names.sorted { $0.lexicographicallyPrecedes($1) } == [".concord", ".git", Self.composed].map(bytes))

        // A file of that name made in the work tree is skipped by save --all, which saves the rest.
        try Data("two\n".utf8).write(to: URL(fileURLWithPath: "\(cli.folder)/a/\(twin)"))
        try Data("other\n".utf8).write(to: URL(fileURLWithPath: "\(cli.folder)/a/other.txt"))
        let all = try cli.run(["-C", "a", "save", "--all"])
        #expect(all.status == 0 && all.stdout.contains("1 added"), "\(all.stdout) \(all.stderr)")
        #expect(all.stderr.split(separator: "\n").count == 1 && all.stderr.contains("skipped"), "\(all.stderr)")
        #expect(try rootNames(cli, "a") == [".concord", Self.composed, "other.txt"].map(bytes))
    }

    @Test func aNewFolderThatDiffersOnlyByCaseIsRefused() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "a", "--remote", "cloud.git"])
        try cli.ok(["-C", "a", "save", "docs/one.txt"], input: "one\n")
        let refused = try cli.run(["-C", "a", "save", "Docs/two.txt"], input: "two\n")
        #expect(refused.status == 1 && refused.stderr.contains("'Docs' differs from the existing folder 'docs' only by case"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(cli.folder)/a/Docs"))
        try cli.ok(["-C", "a", "save", "docs/two.txt"], input: "two\n")
        // A rename that changes only the case is a removal and an addition, not a twin.
        try FileManager.default.moveItem(atPath: "\(cli.folder)/a/docs/one.txt", toPath: "\(cli.folder)/a/docs/One.txt")
        let renamed = try cli.run(["-C", "a", "save", "--all"])
        #expect(renamed.status == 0 && renamed.stderr.isEmpty && renamed.stdout.contains("1 added, 0 changed, 1 removed"), "\(renamed.stdout) \(renamed.stderr)")
    }
}
