import Foundation
import Testing

/// Local input gets the same care as cloud input: no path is followed through a symbolic link,
/// an interrupted work-tree update always finishes, and every refusal says its cause.
@Suite struct WorkTreeSafetyTests {
    /// A container `dev` beside a folder `outside` holding `secret.txt`, and a link
    /// `dev/linkdir` to that folder.
    func containerWithALinkOut() throws -> CLI {
        let cli = try CLI()
        try cli.ok(["init", "dev", "--device", "D"])
        try FileManager.default.createDirectory(atPath: "\(cli.folder)/outside", withIntermediateDirectories: true)
        try Data("secret\n".utf8).write(to: URL(fileURLWithPath: "\(cli.folder)/outside/secret.txt"))
        try FileManager.default.createSymbolicLink(atPath: "\(cli.folder)/dev/linkdir", withDestinationPath: "../outside")
        return cli
    }

    @Test func savingThroughALinkedFolderNeitherWritesNorReadsOutside() throws {
        let cli = try containerWithALinkOut()
        defer { cli.remove() }
        let before = try cli.git(["rev-parse", "main"], in: "dev")

        let write = try cli.run(["-C", "dev", "save", "linkdir/new.txt"], input: "planted\n")
        #expect(write.status == 1 && write.stderr.contains("symbolic link"), "\(write.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(cli.folder)/outside/new.txt"))

        let read = try cli.run(["-C", "dev", "save", "linkdir/secret.txt"])
        #expect(read.status == 1 && read.stderr.contains("symbolic link"), "\(read.stderr)")
        #expect(read.stderr.split(separator: "\n").count == 1)

        let all = try cli.run(["-C", "dev", "save", "--all"])
        #expect(all.status == 0 && all.stderr.contains("skipped linkdir: a symbolic link"), "save --all says it skipped the link: \(all.stderr)")
        #expect(try cli.git(["rev-parse", "main"], in: "dev") == before)
        #expect(try cli.git(["ls-tree", "-r", "--name-only", "main"], in: "dev").contains("secret") == false)
    }

    /// A document from the cloud whose folder is a link on this device: the sync refuses to
    /// move rather than write through the link.
    @Test func aCloudDocumentBehindALocalLinkIsNeverWrittenThroughIt() throws {
        let cli = try containerWithALinkOut()
        defer { cli.remove() }
        try cli.ok(["-C", "dev", "airplane", "on"])
        try cli.ok(["init", "a", "--device", "A", "--remote", "cloud.git"])
        try cli.ok(["clone", "cloud.git", "b", "--device", "B"])
        try cli.ok(["-C", "a", "save", "linkdir/plan.txt"], input: "the plan\n")
        try cli.ok(["-C", "a", "sync"])
        try FileManager.default.createSymbolicLink(atPath: "\(cli.folder)/b/linkdir", withDestinationPath: "../outside")
        let sync = try cli.run(["-C", "b", "sync"])
        #expect(sync.status == 1, "\(sync.stdout) \(sync.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(cli.folder)/outside/plan.txt"))
        try FileManager.default.removeItem(atPath: "\(cli.folder)/b/linkdir")
        try cli.ok(["-C", "b", "sync"])
        #expect(try String(contentsOfFile: "\(cli.folder)/b/linkdir/plan.txt", encoding: .utf8) == "the plan\n")
    }

    /// A sync killed after main moved leaves its work-tree update to the next writer; a file
    /// standing where that update needs a folder is reported and skipped, and every later
    /// command works (no journal jams the device).
    @Test func anInterruptedCheckoutMeetingAnObstacleFinishes() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "a", "--device", "A", "--remote", "cloud.git"])
        try cli.ok(["clone", "cloud.git", "b", "--device", "B"])
        try cli.ok(["-C", "a", "save", "ideas/plan.txt"], input: "the plan\n")
        try cli.ok(["-C", "a", "save", "note.txt"], input: "a note\n")
        try cli.ok(["-C", "a", "sync"])
        let killed = try cli.run(["-C", "b", "sync"], environment: ["CONCORD_CRASH_AT": "ref:device:refs/heads/main:after"])
        #expect(killed.status != 0)
        #expect(FileManager.default.fileExists(atPath: "\(cli.folder)/b/.git/concord/checkout"), "the journal waits for the next writer")
        try Data("in the way\n".utf8).write(to: URL(fileURLWithPath: "\(cli.folder)/b/ideas"))

        let next = try cli.run(["-C", "b", "airplane", "on"])
        #expect(next.status == 0, "\(next.stderr)")
        #expect(next.stderr.contains("warning: not written to the work tree") && next.stderr.contains("'ideas' is not a folder"), "\(next.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(cli.folder)/b/.git/concord/checkout"))
        #expect(try String(contentsOfFile: "\(cli.folder)/b/note.txt", encoding: .utf8) == "a note\n")
        try cli.ok(["-C", "b", "airplane", "off"])
        try cli.ok(["-C", "b", "save", "other.txt"], input: "other\n")
        #expect(try cli.git(["fsck", "--no-dangling"], in: "b").isEmpty)
    }

    /// A sync writes every changed document to a temporary file first and renames them into
    /// place after one flush: killed in between, each document still holds its old content under
    /// its name, and the next writer puts the new ones in place and removes the temporary files.
    @Test func aSyncKilledBeforeItsRenamesLeavesOldContentAndTheNextWriterFinishes() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "a", "--device", "A", "--remote", "cloud.git"])
        try cli.ok(["-C", "a", "save", "note.txt"], input: "note 1\n")
        try cli.ok(["-C", "a", "save", "ideas/plan.txt"], input: "plan 1\n")
        try cli.ok(["-C", "a", "sync"])
        try cli.ok(["clone", "cloud.git", "b", "--device", "B"])
        try cli.ok(["-C", "a", "save", "note.txt"], input: "note 2\n")
        try cli.ok(["-C", "a", "save", "ideas/plan.txt"], input: "plan 2\n")
        try cli.ok(["-C", "a", "save", "ideas/new.txt"], input: "new\n")
        try cli.ok(["-C", "a", "sync"])

        let killed = try cli.run(["-C", "b", "sync"], environment: ["CONCORD_CRASH_AT": "worktree:flushed"])
        #expect(killed.status != 0)
        func temporaryFiles() -> [String] {
            let all = FileManager.default.enumerator(atPath: "\(cli.folder)/b")?.compactMap { $0 as? String } ?? []
            return all.filter { !$0.hasPrefix(".git") && ($0 as NSString).lastPathComponent.hasPrefix(".concord-tmp-") }
        }
        #expect(temporaryFiles().count == 3, "\(temporaryFiles())")
        #expect(try String(contentsOfFile: "\(cli.folder)/b/note.txt", encoding: .utf8) == "note 1\n")
        #expect(try String(contentsOfFile: "\(cli.folder)/b/ideas/plan.txt", encoding: .utf8) == "plan 1\n")
        #expect(!FileManager.default.fileExists(atPath: "\(cli.folder)/b/ideas/new.txt"))

        try cli.ok(["-C", "b", "airplane", "on"])
        #expect(temporaryFiles().isEmpty, "\(temporaryFiles())")
        #expect(try String(contentsOfFile: "\(cli.folder)/b/note.txt", encoding: .utf8) == "note 2\n")
        #expect(try String(contentsOfFile: "\(cli.folder)/b/ideas/plan.txt", encoding: .utf8) == "plan 2\n")
        #expect(try String(contentsOfFile: "\(cli.folder)/b/ideas/new.txt", encoding: .utf8) == "new\n")
        #expect(!FileManager.default.fileExists(atPath: "\(cli.folder)/b/.git/concord/checkout"))
        let main = try cli.git(["rev-parse", "main"], in: "b")
        try cli.ok(["-C", "b", "save", "--all"])
        #expect(try cli.git(["rev-parse", "main"], in: "b") == main, "nothing left to save: the work tree equals main")
        let list = try cli.ok(["-C", "b", "ls"])
        #expect(list.split(separator: "\n").count == 3 && !list.contains(".concord-tmp-"), "\(list)")
    }

    @Test func aLockFileThatCannotBeOpenedSaysWhy() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "dev", "--device", "D"])
        try? FileManager.default.removeItem(atPath: "\(cli.folder)/dev/.git/concord/lock")
        try FileManager.default.createDirectory(atPath: "\(cli.folder)/dev/.git/concord/lock", withIntermediateDirectories: true)
        let save = try cli.run(["-C", "dev", "save", "a.txt"], input: "a\n")
        #expect(save.status == 1 && save.stderr.contains("cannot open the lock file: Is a directory"), "\(save.stderr)")
    }

    @Test(arguments: [".git", ".GIT", "..", ".", "git~1"])
    func keysGitReservesAreRefusedPlainly(_ key: String) throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "dev", "--device", "D"])
        let set = try cli.run(["-C", "dev", "kv", "set", key, "1"])
        #expect(set.status == 1 && set.stderr.contains("git reserves that name"), "\(set.stderr)")
    }
}

extension WorkTreeSafetyTests {
    /// A file larger than other devices accept from the cloud is not saved either, with the
    /// setting that raises the limit named.
    @Test func aFileOverTheObjectLimitIsNotSaved() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "dev", "--device", "D"])
        let limit = ["CONCORD_MAX_OBJECT_SIZE": "1k"]
        let big = try cli.run(["-C", "dev", "save", "big.bin"], input: String(repeating: "x", count: 4096), environment: limit)
        #expect(big.status == 1 && big.stderr.contains("over this device's limit of 1 KB") && big.stderr.contains("concord.maxObjectSize"), "\(big.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(cli.folder)/dev/big.bin"), "refused before anything is written")
        try Data(count: 4096).write(to: URL(fileURLWithPath: "\(cli.folder)/dev/big.bin"))
        #expect(try cli.run(["-C", "dev", "save", "small.txt"], input: "small\n", environment: limit).status == 0)
        let all = try cli.run(["-C", "dev", "save", "--all"], environment: limit)
        #expect(all.stderr.contains("skipped big.bin") && all.stderr.contains("over this device's limit"), "\(all.stderr)")
        #expect(try cli.git(["ls-tree", "--name-only", "main"], in: "dev").contains("big.bin") == false)
    }
}
