import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Someone who can write to a cloud's folder (a shared disk or mount) damages or booby-traps its
/// own files, byte by byte (`scripts/concordsim/craft.py`): indexes and sizes that lie, deltas
/// that loop, folders nested without end, FIFOs, alternates, junk. Every command refuses in one
/// line (exit 1) within a bounded time, without a signal and with memory under the bound the
/// docs/ARCHITECTURE.md states; nothing of the attack is written to the device, whose own versions stay whole
/// and whose repository stays clean for `git fsck`.
@Suite struct UntrustedCloudTests {
    /// The attacks on a cloud's files, as `craft.py` names them.
    enum Attack: String, CaseIterable, Sendable {
        case deepTree = "deep-tree"
        case fanoutPastCount = "fanout-past-count"
        case hugeCountIndex = "huge-count-index"
        case packedBlobClaiming3G = "packed-blob-claiming-3g"
        case looseBlobClaiming3G = "loose-blob-claiming-3g"
        case treeDeltaBomb = "tree-delta-bomb"
        case refDeltaCycle = "ref-delta-cycle"
        case fifoIndex = "fifo-index"
        case fifoLoose = "fifo-loose"
        case garbagePackedRefs = "garbage-packed-refs"

        /// What the one line of the refusal says.
        var cause: String {
            switch self {
            case .deepTree: "nested deeper than 512 folders"
            case .fanoutPastCount: "fan-out table decreases"
            case .hugeCountIndex: "does not match the 4294967295 objects it claims"
            case .packedBlobClaiming3G, .looseBlobClaiming3G: "claims 3 GB, over the limit of 100 MB"
            case .treeDeltaBomb: "claims 1 GB, over the limit of 100 MB"
            case .refDeltaCycle: "its deltas loop"
            case .fifoIndex, .fifoLoose: "it is not a regular file"
            case .garbagePackedRefs: "line 2 of packed-refs is malformed"
            }
        }

        /// True when the refusal names the commit that holds the attack.
        var namesTheCommit: Bool { [.deepTree, .packedBlobClaiming3G, .looseBlobClaiming3G, .treeDeltaBomb].contains(self) }
    }

    @Test(arguments: Attack.allCases)
    func anAttackOnTheCloudsFilesIsRefusedInOneLineWithMemoryBounded(_ attack: Attack) throws {
        let cli = try twoDevices()
        defer { cli.remove() }
        let cloud = "\(cli.folder)/cloud.git", device = "\(cli.folder)/b"
        let before = try DeviceState(cli, "b")
        let commit = try Craft.run(attack.rawValue, cloud: cloud)

        for arguments in [["-C", device, "sync"], ["clone", cloud, "\(cli.folder)/c"]] {
            let run = try cli.measured(arguments)
            let what = "\(attack) \(arguments[arguments.count - 1 == 2 ? 2 : 0])"
            #expect(run.ended && run.status == 1, "\(what): ended \(run.ended), status \(String(describing: run.status)): \(run.stderr)")
            let lines = run.stderr.split(separator: "\n")
            #expect(lines.count == 1 && run.stderr.contains("refused what the cloud") && run.stderr.contains(attack.cause), "\(what): \(run.stderr)")
            if attack.namesTheCommit { #expect(run.stderr.contains(commit.prefix(7)), "\(what): \(run.stderr)") }
            #expect(run.peakBytes <= CLI.memoryBound(), "\(what): peak memory \(run.peakBytes >> 20) MB")
        }
        #expect(!FileManager.default.fileExists(atPath: "\(cli.folder)/c"), "a refused clone leaves no folder")
        try before.expectUnchanged(cli, "b", attack.rawValue)
        try cli.ok(["-C", "b", "save", "note.txt"], input: "still saving\n")
        #expect(try cli.ok(["-C", "b", "show", "note.txt"]) == "still saving\n")
    }

    /// The same over the network (`git daemon`): a file stored as a delta that rebuilds a
    /// gigabyte from 16 KB of instructions is refused by libgit2's indexer at Concord's limit,
    /// before the gigabyte is spent; and the arrival limit counts each path there too.
    @Test func overGitDaemonADeltaBombAndOneFileUnderManyNamesAreRefused() throws {
        let (cli, daemon) = try CloudTesting.daemonFixture()
        defer { cli.remove() }
        defer { daemon.stop() }
        let url = daemon.url("cloud.git")
        try cli.ok(["init", "a", "--device", "A", "--remote", url])
        try cli.ok(["-C", "a", "save", "note.txt"], input: "hello\n")
        try cli.ok(["-C", "a", "sync"])
        try cli.ok(["clone", url, "b", "--device", "B"])
        let before = try DeviceState(cli, "b")
        let good = try cli.git(["rev-parse", "main"], in: "cloud.git")

        let bomb = try Craft.run("blob-delta-bomb", cloud: "\(cli.folder)/cloud.git")
        for arguments in [["-C", "\(cli.folder)/b", "sync"], ["clone", url, "\(cli.folder)/c"]] {
            let run = try cli.measured(arguments)
            #expect(run.ended && run.status == 1, "\(arguments): \(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1 && run.stderr.contains("refused what the cloud"), "\(run.stderr)")
            #expect(run.stderr.contains("concord limits --file-size SIZE' raises it"), "told as over the limit: \(run.stderr)")
            #expect(run.peakBytes <= CLI.memoryBound(), "peak memory \(run.peakBytes >> 20) MB")
        }
        #expect(!bomb.isEmpty && !FileManager.default.fileExists(atPath: "\(cli.folder)/c"))
        try before.expectUnchanged(cli, "b", "a delta bomb over git daemon")

        try Data("\(good)\n".utf8).write(to: URL(fileURLWithPath: "\(cli.folder)/cloud.git/refs/heads/main"))
        let commit = try Craft.run("one-file-many-names", cloud: "\(cli.folder)/cloud.git", ["--size", "102400", "--names", "40"])
        let sync = try cli.run(["-C", "b", "sync"], environment: ["CONCORD_MAX_ARRIVAL_SIZE": "1m"])
        #expect(sync.status == 1 && sync.stderr.contains(commit.prefix(7)) && sync.stderr.contains("past the limit of 1 MB"), "\(sync.stderr)")
        try before.expectUnchanged(cli, "b", "one file, many names, over git daemon")
    }

    /// A clone from a path is a fetch: it shares no file with the cloud (no hard link, no copy of
    /// `objects/` as it stands, no alternates, no reference but `main`), so that what the cloud's
    /// owner does to its files later cannot reach the device's history.
    @Test func aCloneFromAPathSharesNothingWithTheCloud() throws {
        let cli = try twoDevices()
        defer { cli.remove() }
        let cloud = "\(cli.folder)/cloud.git"
        try cli.ok(["-C", "a", "save", "note.txt"], input: "second\n")
        try cli.ok(["-C", "a", "sync"])
        _ = try Craft.run("junk", cloud: cloud, ["--tags", "100000"])

        let clone = try cli.measured(["clone", cloud, "\(cli.folder)/c", "--device", "C"])
        #expect(clone.ended && clone.status == 0, "\(clone.stderr)")
        let git = "\(cli.folder)/c/.git"
        for file in try files(below: "\(git)/objects") {
            var status = stat()
            #expect(lstat(file, &status) == 0 && status.st_nlink == 1, "\(file) is shared (\(status.st_nlink) links)")
        }
        #expect(!FileManager.default.fileExists(atPath: "\(git)/objects/info/alternates"))
        #expect(!FileManager.default.fileExists(atPath: "\(git)/objects/junk.bin"))
        #expect(!FileManager.default.fileExists(atPath: "\(git)/objects/info/run-me.sh"))
        #expect(try cli.git(["for-each-ref", "--format=%(refname)"], in: "c").split(separator: "\n") == ["refs/heads/main", "refs/remotes/origin/main"])

        // The cloud's owner overwrites every pack of the cloud in place (the same inodes).
        for file in try files(below: "\(cloud)/objects/pack") {
            let descriptor = open(file, O_WRONLY)
            var status = stat()
            fstat(descriptor, &status)
            let zeros = [UInt8](repeating: 0, count: Int(status.st_size))
            #expect(write(descriptor, zeros, zeros.count) == zeros.count)
            close(descriptor)
        }
        #expect(try cli.json(["-C", "c", "versions", "note.txt", "--all", "--json"]).count == 2)
        #expect(try cli.ok(["-C", "c", "show", "note.txt"]) == "second\n")
        #expect(try cli.ok(["-C", "c", "log", "note.txt"]).contains("A"))
        try cli.ok(["-C", "c", "save", "note.txt"], input: "third, saved after the cloud was wrecked\n")
        #expect(try cli.fsck("c").isEmpty)
    }

    /// `objects/info/alternates` in a cloud names a folder outside it that holds the only copy
    /// of a commit: the device never reads it, so nothing of that commit is adopted, and removing
    /// the folder later breaks nothing on the device.
    @Test func aCloudsAlternatesAreNeverRead() throws {
        let cli = try twoDevices()
        defer { cli.remove() }
        let cloud = "\(cli.folder)/cloud.git", outside = "\(cli.folder)/outside"
        let before = try DeviceState(cli, "b")
        let good = try cli.git(["rev-parse", "main"], in: "cloud.git")
        _ = try Craft.run("alternates", cloud: cloud, ["--outside", outside])

        for arguments in [["-C", "\(cli.folder)/b", "sync"], ["clone", cloud, "\(cli.folder)/c"]] {
            let run = try cli.measured(arguments)
            #expect(run.ended && run.status == 1 && run.stderr.contains("refused what the cloud"), "\(run.stderr)")
        }
        try FileManager.default.removeItem(atPath: outside)
        try before.expectUnchanged(cli, "b", "alternates")
        try Data("\(good)\n".utf8).write(to: URL(fileURLWithPath: "\(cloud)/refs/heads/main"))
        try FileManager.default.removeItem(atPath: "\(cloud)/objects/info/alternates")
        try cli.ok(["-C", "b", "sync"])
        #expect(try cli.fsck("b").isEmpty)
    }

    /// The device's own pack index damaged the same way (a fan-out table past its object count):
    /// commands fail in one line naming the damaged file, never with a signal.
    @Test func aDamagedIndexOfTheDevicesOwnIsAnErrorNotACrash() throws {
        let cli = try twoDevices()
        defer { cli.remove() }
        for index in try files(below: "\(cli.folder)/b/.git/objects/pack") where index.hasSuffix(".idx") {
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: index)))
            for bucket in 0x10..<0xFF { bytes.replaceSubrange((8 + bucket * 4)..<(12 + bucket * 4), with: [0x7F, 0xFF, 0xFF, 0xF0]) }
            try Data(bytes).write(to: URL(fileURLWithPath: index))
        }
        for arguments in [["ls"], ["versions", "note.txt"], ["show", "note.txt"], ["log", "note.txt"], ["sync"]] {
            let run = try cli.measured(["-C", "\(cli.folder)/b"] + arguments)
            #expect(run.ended && run.status == 1, "\(arguments): \(String(describing: run.status)) \(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1 && run.stderr.contains("fan-out table decreases"), "\(arguments): \(run.stderr)")
        }
    }

    /// The arrival limit counts what a checkout writes: one file named under many paths arrives
    /// once but is written once for each name.
    @Test func theArrivalLimitCountsEveryPathAFileIsWrittenTo() throws {
        let cli = try twoDevices()
        defer { cli.remove() }
        let before = try DeviceState(cli, "b")
        let commit = try Craft.run("one-file-many-names", cloud: "\(cli.folder)/cloud.git", ["--size", "102400", "--names", "40"])
        let sync = try cli.run(["-C", "b", "sync"], environment: ["CONCORD_MAX_ARRIVAL_SIZE": "1m"])
        #expect(sync.status == 1 && sync.stderr.contains(commit.prefix(7)) && sync.stderr.contains("past the limit of 1 MB"), "\(sync.stderr)")
        try before.expectUnchanged(cli, "b", "one file, many names")
        #expect(try cli.run(["-C", "b", "sync"], environment: ["CONCORD_MAX_ARRIVAL_SIZE": "8m"]).status == 0)
    }

    /// A commit refused after its objects arrived leaves none of them in the device's packs.
    @Test func aRefusedFetchLeavesNoPackBehind() throws {
        let cli = try twoDevices()
        defer { cli.remove() }
        let packs = try files(below: "\(cli.folder)/b/.git/objects")
        let hostile = HostileCloud(path: "\(cli.folder)/cloud.git")
        try hostile.push(adding: [.init("100644", "..", hostile.blob("PWNED\n"))])
        #expect(try cli.run(["-C", "b", "sync"]).status == 1)
        #expect(try files(below: "\(cli.folder)/b/.git/objects") == packs)
    }

    /// A save killed while it streams a large file into a temporary object leaves that file; the
    /// next writer removes it, and a killed clone can be cloned again into the same folder.
    @Test func whatAKilledCommandLeavesIsRemovedOrReplaced() throws {
        let cli = try twoDevices()
        defer { cli.remove() }
        try Data((0..<(9 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) }).write(to: URL(fileURLWithPath: "\(cli.folder)/b/big.bin"))
        let killed = try cli.run(["-C", "b", "save", "big.bin"], environment: ["CONCORD_CRASH_AT": "blob:streaming"])
        #expect(killed.status != 0)
        let temporary = { try files(below: "\(cli.folder)/b/.git/objects").filter { $0.contains("tmp_object_git2_") } }
        #expect(try temporary().count == 1, "the kill left its temporary object")
        try cli.ok(["-C", "b", "save", "note.txt"], input: "the next writer\n")
        #expect(try temporary().isEmpty)

        let clone = try cli.run(["clone", "cloud.git", "c"], environment: ["CONCORD_CRASH_AT": "objects:copied"])
        #expect(clone.status != 0 && FileManager.default.fileExists(atPath: "\(cli.folder)/c/.git"))
        try cli.ok(["clone", "cloud.git", "c", "--device", "C"])
        #expect(try cli.ok(["-C", "c", "show", "note.txt"]) == "hello\n")
        #expect(try cli.fsck("c").isEmpty)
    }

    // MARK: Fixture

    /// Devices `a` and `b` of the local cloud `cloud.git`, both holding `note.txt` ("hello").
    private func twoDevices() throws -> CLI {
        let cli = try CLI()
        do {
            try cli.ok(["init", "a", "--device", "A", "--remote", "cloud.git"])
            try cli.ok(["-C", "a", "save", "note.txt"], input: "hello\n")
            try cli.ok(["-C", "a", "sync"])
            try cli.ok(["clone", "cloud.git", "b", "--device", "B"])
            return cli
        } catch {
            cli.remove()
            throw error
        }
    }

    /// What a refused transfer must leave as it was on a device: `main`, `origin/main`, the work
    /// tree, the objects, the history of `note.txt`.
    private struct DeviceState {
        var main: String, fetched: String
        var workTree: [String], objects: [String]
        var versions: Int

        init(_ cli: CLI, _ device: String) throws {
            main = try cli.git(["rev-parse", "main"], in: device)
            fetched = try cli.git(["rev-parse", "origin/main"], in: device)
            workTree = try UntrustedCloudTests.files(below: "\(cli.folder)/\(device)").filter { !$0.contains("/.git/") }
            objects = try UntrustedCloudTests.files(below: "\(cli.folder)/\(device)/.git/objects")
            versions = try cli.json(["-C", device, "versions", "note.txt", "--all", "--json"]).count
        }

        func expectUnchanged(_ cli: CLI, _ device: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let now = try DeviceState(cli, device)
            #expect(
                now.main == main && now.fetched == fetched, "\(what): main or origin/main moved: \(main) \(fetched) -> \(now.main) \(now.fetched)", sourceLocation: sourceLocation)
            #expect(now.workTree == workTree, "\(what): the work tree changed", sourceLocation: sourceLocation)
            #expect(now.objects == objects, "\(what): objects were written: \(Set(now.objects).subtracting(objects))", sourceLocation: sourceLocation)
            #expect(now.versions == versions, "\(what): the history changed", sourceLocation: sourceLocation)
            let fsck = try cli.fsck(device)
            #expect(fsck.isEmpty, "\(what): git fsck: \(fsck)", sourceLocation: sourceLocation)
        }
    }

    /// Every file below `folder`, sorted.
    static func files(below folder: String) throws -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: folder) else { return [] }
        var found: [String] = []
        while let name = enumerator.nextObject() as? String {
            var status = stat()
            if lstat("\(folder)/\(name)", &status) == 0, status.st_mode & S_IFMT != S_IFDIR { found.append("\(folder)/\(name)") }
        }
        return found.sorted()
    }

    private func files(below folder: String) throws -> [String] { try Self.files(below: folder) }
}

/// Runs `scripts/concordsim/craft.py`, which writes an attack into a cloud's files.
enum Craft {
    /// The repository's root, from this file's path.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// Writes `attack` into the cloud; returns the commit its main now points at ("" when none).
    @discardableResult
    static func run(_ attack: String, cloud: String, _ arguments: [String] = []) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-B", "\(root)/scripts/concordsim/craft.py", attack, cloud] + arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        let complaint = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw HostileCloudError(message: "craft.py \(attack): \(String(decoding: complaint, as: UTF8.self))")
        }
        return String(decoding: printed, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
