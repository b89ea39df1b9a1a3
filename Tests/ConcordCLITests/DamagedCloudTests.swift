import Foundation
import Testing

/// A cloud that was reached but sent a commit that cannot be read (missing, damaged or
/// malformed) is refused with its own one-line error: never reported as offline, which says
/// "wait" when waiting changes nothing. Offline stays for a cloud that cannot be reached.
@Suite struct DamagedCloudTests {
    /// Damaged commits, each written byte by byte into the cloud and pointed at by its `main`.
    enum Damage: String, CaseIterable, Sendable {
        case missingFolder, notACommit, noAuthor

        /// The damaged commit, on top of the cloud's `main`.
        func commit(in cloud: HostileCloud) throws -> String {
            let parent = try cloud.main()
            let tree = try cloud.git(["rev-parse", "\(parent)^{tree}"])
            let author = "author M <m@example.com> 1800000000 +0000\ncommitter M <m@example.com> 1800000000 +0000\n"
            switch self {
            case .missingFolder:
                return try cloud.rawObject("commit", "tree \(String(repeating: "1", count: 40))\nparent \(parent)\n\(author)\nmissing folder\n")
            case .notACommit:
                return try cloud.rawObject("commit", "this is not a commit\n")
            case .noAuthor:
                return try cloud.rawObject("commit", "tree \(tree)\nparent \(parent)\n\nno author\n")
            }
        }
    }

    /// Devices `a` and `b` of a local cloud `cloud.git`, both holding `note.txt` ("hello").
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

    /// Checks a refusal: exit 1, one line naming the refusal, not "offline".
    private func expectRefused(_ result: CLI.Result, _ damage: Damage, _ what: String) {
        let line = result.stderr.trimmingCharacters(in: .newlines)
        #expect(result.status == 1, "\(damage) \(what): \(result.stdout) \(line)")
        #expect(!line.contains("\n") && line.contains("refused what the cloud") && !line.contains("offline"), "\(damage) \(what): \(line)")
    }

    @Test(arguments: Damage.allCases)
    func aDamagedCommitFromALocalCloudIsRefusedNotOffline(_ damage: Damage) throws {
        let cli = try twoDevices()
        defer { cli.remove() }
        let cloud = HostileCloud(path: "\(cli.folder)/cloud.git")
        let good = try cloud.main()
        let main = try cli.git(["rev-parse", "main"], in: "b"), fetched = try cli.git(["rev-parse", "origin/main"], in: "b")
        try cloud.forceMain(damage.commit(in: cloud))

        expectRefused(try cli.run(["-C", "b", "sync"]), damage, "sync")
        #expect(try cli.git(["rev-parse", "main"], in: "b") == main)
        #expect(try cli.git(["rev-parse", "origin/main"], in: "b") == fetched)
        expectRefused(try cli.run(["clone", "cloud.git", "c"]), damage, "clone")
        #expect(!FileManager.default.fileExists(atPath: "\(cli.folder)/c"))

        try cli.ok(["-C", "b", "save", "note.txt"], input: "kept while the cloud is damaged\n")
        try cloud.forceMain(good)
        try cli.ok(["-C", "b", "sync"])
        try cli.ok(["-C", "a", "sync"])
        #expect(try cli.ok(["-C", "a", "show", "note.txt"]) == "kept while the cloud is damaged\n")
        // Offline is for a cloud that cannot be reached.
        try FileManager.default.moveItem(atPath: "\(cli.folder)/cloud.git", toPath: "\(cli.folder)/away.git")
        let away = try cli.run(["-C", "b", "sync"])
        #expect(away.status == 1 && away.stderr.hasPrefix("concord: offline ("), "\(away.stderr)")
    }

    /// An object whose content is not what its id says (a file swapped in the cloud) is refused
    /// when it arrives, although objects are not hashed again at each later read.
    @Test func anObjectWhoseContentIsNotItsIdIsRefused() throws {
        let cli = try twoDevices()
        defer { cli.remove() }
        let cloud = HostileCloud(path: "\(cli.folder)/cloud.git")
        let genuine = try cloud.blob("genuine\n"), forged = try cloud.blob("forged!\n")
        let file = { (id: String) in "\(cloud.path)/objects/\(id.prefix(2))/\(id.dropFirst(2))" }
        try FileManager.default.removeItem(atPath: file(genuine))
        try FileManager.default.copyItem(atPath: file(forged), toPath: file(genuine))
        try cloud.push(adding: [.init("100644", "note.txt", genuine)])
        let main = try cli.git(["rev-parse", "main"], in: "b")

        let sync = try cli.run(["-C", "b", "sync"])
        let line = sync.stderr.trimmingCharacters(in: .newlines)
        #expect(sync.status == 1 && !line.contains("\n") && line.contains("refused what the cloud"), "\(line)")
        #expect(try cli.git(["rev-parse", "main"], in: "b") == main)
        #expect(try cli.ok(["-C", "b", "show", "note.txt"]) == "hello\n")
        #expect(try String(contentsOfFile: "\(cli.folder)/b/note.txt", encoding: .utf8) == "hello\n")
    }

    /// The same, for an object a pack of the cloud lists under an id its content does not hash
    /// to (a file or a folder), although the entries of a cloud's packs are copied as stored.
    @Test(arguments: [false, true]) func aPackedObjectWhoseContentIsNotItsIdIsRefused(folder: Bool) throws {
        let cli = try twoDevices()
        defer { cli.remove() }
        let cloud = HostileCloud(path: "\(cli.folder)/cloud.git")
        var genuine = try cloud.blob("genuine\n"), forged = try cloud.blob("forged!\n")
        if folder {
            (genuine, forged) = (try cloud.tree([.init("100644", "a.txt", genuine)]), try cloud.tree([.init("100644", "a.txt", forged)]))
        }
        try cloud.removeLoose(genuine)
        try cloud.packForged(forged, as: genuine)
        try cloud.push(adding: [.init(folder ? "40000" : "100644", folder ? "folder" : "note.txt", genuine)])
        let main = try cli.git(["rev-parse", "main"], in: "b")

        let sync = try cli.run(["-C", "b", "sync"])
        let line = sync.stderr.trimmingCharacters(in: .newlines)
        #expect(sync.status == 1 && !line.contains("\n") && line.contains("refused what the cloud"), "\(line)")
        #expect(try cli.git(["rev-parse", "main"], in: "b") == main)
        #expect(try cli.git(["rev-parse", "--quiet", "--verify", "\(genuine)^{object}"], in: "b").isEmpty)
        #expect(try cli.ok(["-C", "b", "show", "note.txt"]) == "hello\n")
    }

    @Test func aMalformedCommitOverGitDaemonIsRefusedNotOffline() throws {
        let (cli, daemon) = try CloudTesting.daemonFixture()
        defer { cli.remove() }
        defer { daemon.stop() }
        let url = daemon.url("cloud.git")
        try cli.ok(["init", "a", "--device", "A", "--remote", url])
        try cli.ok(["-C", "a", "save", "note.txt"], input: "hello\n")
        try cli.ok(["-C", "a", "sync"])
        try cli.ok(["clone", url, "b", "--device", "B"])
        let cloud = HostileCloud(path: "\(cli.folder)/cloud.git")
        let main = try cli.git(["rev-parse", "main"], in: "b")
        try cloud.forceMain(Damage.noAuthor.commit(in: cloud))
        let sync = try cli.run(["-C", "b", "sync"])
        #expect(sync.status == 1 && sync.stderr.contains("refused what the cloud") && !sync.stderr.contains("offline"), "\(sync.stderr)")
        #expect(try cli.git(["rev-parse", "main"], in: "b") == main)
        let clone = try cli.run(["clone", url, "c"])
        #expect(clone.status == 1 && !clone.stderr.contains("offline") && !FileManager.default.fileExists(atPath: "\(cli.folder)/c"), "\(clone.stderr)")
    }

    /// Ways a pack index in the cloud can be damaged (a cloud folder copied halfway, a disk that
    /// lost a write): its offsets point past the end of its pack, or the file is cut short.
    enum IndexDamage: CaseIterable {
        case pointingPastThePack, cutShort

        func apply(to index: Data) -> Data {
            switch self {
            case .pointingPastThePack: DamagedCloudTests.pointingPastThePack(index)
            case .cutShort: index.prefix(index.count / 2)
            }
        }
    }

    /// A damaged pack index in the cloud is refused like a damaged commit, not taken for offline,
    /// and the device keeps its own versions.
    @Test(arguments: IndexDamage.allCases)
    func aDamagedPackIndexIsRefusedNotOffline(_ damage: IndexDamage) throws {
        let cli = try twoDevices()
        defer { cli.remove() }
        let main = try cli.git(["rev-parse", "main"], in: "b")
        let before = Set(try packIndexes(in: "\(cli.folder)/cloud.git"))
        try cli.ok(["-C", "a", "save", "note.txt"], input: "hello again\n")
        try cli.ok(["-C", "a", "sync"])
        let sent = try #require(try packIndexes(in: "\(cli.folder)/cloud.git").first { !before.contains($0) })
        let genuine = try Data(contentsOf: URL(fileURLWithPath: sent))
        try replace(sent, with: damage.apply(to: genuine))

        let sync = try cli.run(["-C", "b", "sync"])
        let line = sync.stderr.trimmingCharacters(in: .newlines)
        #expect(sync.status == 1 && !line.contains("\n") && line.contains("refused what the cloud") && !line.contains("offline"), "\(damage): \(line)")
        #expect(try cli.git(["rev-parse", "main"], in: "b") == main)
        #expect(try cli.ok(["-C", "b", "show", "note.txt"]) == "hello\n")

        try replace(sent, with: genuine)
        try cli.ok(["-C", "b", "sync"])
        #expect(try cli.ok(["-C", "b", "show", "note.txt"]) == "hello again\n")
    }

    /// The cloud's pack indexes (`.idx` files), by path.
    private func packIndexes(in cloud: String) throws -> [String] {
        let folder = "\(cloud)/objects/pack"
        return try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".idx") }.map { "\(folder)/\($0)" }
    }

    /// Writes a new file in place of `path`: a device cloned from a local cloud shares its pack
    /// files through hard links, so writing into the file would damage the device's copy too.
    private func replace(_ path: String, with data: Data) throws {
        try data.write(to: URL(fileURLWithPath: path + ".new"))
        #expect(rename(path + ".new", path) == 0)
    }

    /// A version 2 pack index whose every object offset is past the end of any pack.
    static func pointingPastThePack(_ index: Data) -> Data {
        var bytes = [UInt8](index)
        let count = bytes[8 + 255 * 4..<8 + 256 * 4].reduce(0) { $0 << 8 | Int($1) }
        let offsets = 8 + 256 * 4 + count * (20 + 4)
        for entry in 0..<count { bytes.replaceSubrange(offsets + entry * 4..<offsets + entry * 4 + 4, with: [0x70, 0, 0, 0]) }
        return Data(bytes)
    }
}
