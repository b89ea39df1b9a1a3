import Foundation
import Git
import GitFormat
import GitStore
import Testing

/// Packs written by Concord itself (copying objects between repositories, rolling up packs and
/// loose objects): a wide folder changed one file per commit is stored as deltas against the
/// folder's previous versions, and every object reads back as it was written.
@Suite struct PackWriterTests {
    let folder = NSTemporaryDirectory() + "concord-packwriter-" + UUID().uuidString
    let signature = Signature(name: "t", email: "t@example.invalid", time: Date(timeIntervalSince1970: 1_700_000_000))

    /// A folder of 2,000 files, then 40 commits that each modify, add or remove one file (and
    /// edit a 200 KB document in its middle every fourth commit), all loose.
    func history(in repository: Repository) throws -> (first: OID, commits: [OID], files: [OID: [String: Data]]) {
        var contents: [String: Data] = [:]
        for index in 0..<2_000 { contents[String(format: "note%05d.txt", index)] = Data("note \(index)\n".utf8) }
        contents["long.txt"] = Data((0..<4_000).map { "line \($0) of a long document\n" }.joined().utf8)
        var tree = try repository.updateTree(
            nil, contents.map { .upsert(path: $0.key, id: try repository.writeBlob($0.value), mode: TreeEntry.fileMode) })
        let first = try repository.createCommit(tree: tree, parents: [], author: signature, committer: signature, message: "first\n")
        var files: [OID: [String: Data]] = [first: contents]
        var commits: [OID] = []
        var parent = first
        for step in 0..<40 {
            var updates: [TreeUpdate] = []
            switch step % 3 {
            case 0:
                let path = String(format: "note%05d.txt", step * 37)
                contents[path] = Data("edited at step \(step)\n".utf8)
                updates.append(.upsert(path: path, id: try repository.writeBlob(contents[path]!), mode: TreeEntry.fileMode))
            case 1:
                let path = "added\(step).txt"
                contents[path] = Data("added at step \(step)\n".utf8)
                updates.append(.upsert(path: path, id: try repository.writeBlob(contents[path]!), mode: TreeEntry.fileMode))
            default:
                let path = String(format: "note%05d.txt", 1_999 - step)
                contents[path] = nil
                updates.append(.remove(path: path))
            }
            if step % 4 == 0 {
                var lines = String(decoding: contents["long.txt"]!, as: UTF8.self).components(separatedBy: "\n")
                lines[2_000] = "the middle, edited at step \(step)"
                contents["long.txt"] = Data(lines.joined(separator: "\n").utf8)
                updates.append(.upsert(path: "long.txt", id: try repository.writeBlob(contents["long.txt"]!), mode: TreeEntry.fileMode))
            }
            tree = try repository.updateTree(tree, updates)
            parent = try repository.createCommit(tree: tree, parents: [parent], author: signature, committer: signature, message: "step \(step)\n")
            commits.append(parent)
            files[parent] = contents
        }
        return (first, commits, files)
    }

    func expectContents(_ files: [OID: [String: Data]], in repository: Repository, _ comment: Comment) throws {
        for (commit, contents) in files {
            let tree = try repository.treeID(ofCommit: commit)
            #expect(try repository.entries(ofTree: tree).count == contents.count, comment)
            for path in ["note00000.txt", "note00037.txt", "long.txt", "added1.txt", "note01997.txt"] {
                #expect(try repository.entry(at: path, in: tree).map { try repository.blob($0.id) } == contents[path], comment)
            }
        }
    }

    func packBytes(_ repository: Repository) -> Int { repository.packs().reduce(0) { $0 + $1.bytes } }

    @Test func aWideFolderChangedOneFileAtATimeTravelsAsDeltas() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = try Repository.create(at: folder + "/source", bare: true)
        let destination = try Repository.create(at: folder + "/destination", bare: true)
        let (first, commits, files) = try history(in: source)
        try source.copyObjects(to: destination, from: [first], hiding: [])
        let before = packBytes(destination)
        // The folder alone is about 60 KB compressed: 40 whole copies would be over 2 MB.
        #expect(try source.copyObjects(to: destination, from: [commits.last!], hiding: [first]) == 40 * 3 + 40 / 4 * 1 - 40 / 3)
        let added = packBytes(destination) - before
        #expect(added < 300_000, "40 versions of a 2,000-file folder took \(added) bytes")
        try expectContents(files, in: Repository.open(at: folder + "/destination"), "copied")
        #expect(try gitFsck(folder + "/destination") == 0)
        // From packs, entries are copied as stored: from the destination (its packs) to a third
        // repository, then the same through a pack that is not thin (a push to a local cloud).
        let third = try Repository.create(at: folder + "/third", bare: true)
        try destination.copyObjects(to: third, from: [first], hiding: [])
        try destination.copyObjects(to: third, from: [commits.last!], hiding: [first])
        try expectContents(files, in: Repository.open(at: folder + "/third"), "copied from packs")
        #expect(try gitFsck(folder + "/third") == 0)
        let fourth = try Repository.create(at: folder + "/fourth", bare: true)
        try destination.copyObjects(to: fourth, from: [first], hiding: [], trusted: true)
        let start = packBytes(fourth)
        try destination.copyObjects(to: fourth, from: [commits.last!], hiding: [first], trusted: true)
        #expect(packBytes(fourth) - start < 300_000)
        try expectContents(files, in: Repository.open(at: folder + "/fourth"), "copied from packs, not thin")
        #expect(try gitFsck(folder + "/fourth") == 0)
    }

    @Test func rollingUpLooseObjectsAndPacksKeepsTheDeltas() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let repository = try Repository.create(at: folder, bare: true)
        let (_, commits, files) = try history(in: repository)
        try repository.setReference("refs/heads/main", to: commits.last!, expected: nil, message: "test")
        let loose = repository.looseObjects()
        #expect(loose.count > 2_000)
        try repository.merge(packs: repository.packs(), andLooseObjects: loose)
        #expect(repository.looseObjects().isEmpty && repository.packs().count == 1)
        let rolledUp = packBytes(repository)
        #expect(rolledUp < 400_000, "2,000 files and 40 versions of their folder took \(rolledUp) bytes")
        // A second pack, then both merged: entries are copied as stored, deltas included.
        let extra = try repository.createCommit(
            tree: repository.updateTree(repository.treeID(ofCommit: commits.last!), [.remove(path: "note00001.txt")]),
            parents: [commits.last!], author: signature, committer: signature, message: "extra\n")
        try repository.merge(packs: [], andLooseObjects: repository.looseObjects())
        #expect(repository.packs().count == 2)
        try repository.merge(packs: repository.packs(), andLooseObjects: [])
        #expect(repository.packs().count == 1 && packBytes(repository) < rolledUp + 50_000)
        var all = files
        all[extra] = files[commits.last!]!.filter { $0.key != "note00001.txt" }
        try expectContents(all, in: Repository.open(at: folder), "rolled up")
        #expect(try gitFsck(folder) == 0)
    }

    /// Each save stores its objects as one pack, holding its version of the folder whole.
    /// Rolled up, or sent from those packs, the versions become deltas again: copying whole
    /// entries as stored would keep a whole folder per save in every pack they reach.
    @Test func foldersSavedOnePackAtATimeBecomeDeltasWhenRolledUpOrSent() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let repository = try Repository.create(at: folder + "/source", bare: true)
        var files: [String: Data] = [:]
        for index in 0..<2_000 { files[String(format: "note%05d.txt", index)] = Data("note \(index)\n".utf8) }
        var tree = try repository.writingOnePack {
            try repository.updateTree(nil, files.map { .upsert(path: $0.key, id: try repository.writeBlob($0.value), mode: TreeEntry.fileMode) })
        }
        var commits = [try repository.writingOnePack { try repository.createCommit(tree: tree, parents: [], author: signature, committer: signature, message: "first\n") }]
        var contents = [commits[0]: files]
        for step in 0..<30 {
            let path = String(format: "note%05d.txt", step * 61)
            files[path] = Data("saved at step \(step)\n".utf8)
            let commit = try repository.writingOnePack {
                tree = try repository.updateTree(tree, [.upsert(path: path, id: try repository.writeBlob(files[path]!), mode: TreeEntry.fileMode)])
                return try repository.createCommit(tree: tree, parents: [commits.last!], author: signature, committer: signature, message: "step \(step)\n")
            }
            commits.append(commit)
            contents[commit] = files
        }
        try repository.setReference("refs/heads/main", to: commits.last!, expected: nil, message: "test")
        #expect(repository.looseObjects().isEmpty && repository.packs().count == 32)
        let separate = packBytes(repository)

        for trusted in [true, false] {
            let destination = try Repository.create(at: folder + "/destination-\(trusted)", bare: true)
            try repository.copyObjects(to: destination, from: [commits[0]], hiding: [], trusted: trusted)
            try repository.copyObjects(to: destination, from: [commits.last!], hiding: [commits[0]], trusted: trusted)
            #expect(packBytes(destination) < separate / 4, "sent (trusted: \(trusted)): \(packBytes(destination)) bytes, \(separate) in the packs of each save")
            #expect(try gitFsck(folder + "/destination-\(trusted)") == 0)
        }
        try repository.merge(packs: repository.packs(), andLooseObjects: [])
        let rolledUp = packBytes(repository)
        #expect(repository.packs().count == 1 && rolledUp < separate / 4, "\(separate) bytes in the packs of each save, \(rolledUp) rolled up")
        try expectContents(contents, in: Repository.open(at: folder + "/source"), "rolled up")
        #expect(try gitFsck(folder + "/source") == 0)
    }

    /// Months of use: a few saves (each its own pack, holding its version of the folder whole),
    /// then a roll-up of every pack into one, forty times. The chains of deltas stay short: a
    /// version added on top of one copied as stored does not take it as its base when that
    /// would make the chain one step longer at every roll-up (git reads each version by
    /// rebuilding its whole chain).
    @Test func chainsOfDeltasStayShortOverManyRollUps() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let repository = try Repository.create(at: folder + "/source", bare: true)
        var files: [String: Data] = [:]
        for index in 0..<2_000 { files[String(format: "note%05d.txt", index)] = Data("note \(index)\n".utf8) }
        var tree = try repository.writingOnePack {
            try repository.updateTree(nil, files.map { .upsert(path: $0.key, id: try repository.writeBlob($0.value), mode: TreeEntry.fileMode) })
        }
        var commits = [try repository.writingOnePack { try repository.createCommit(tree: tree, parents: [], author: signature, committer: signature, message: "first\n") }]
        var contents = [commits[0]: files]
        for round in 0..<40 {
            for save in 0..<3 {
                let path = String(format: "note%05d.txt", (round * 3 + save) * 13 % 2_000)
                files[path] = Data("saved in round \(round), save \(save)\n".utf8)
                let commit = try repository.writingOnePack {
                    tree = try repository.updateTree(tree, [.upsert(path: path, id: try repository.writeBlob(files[path]!), mode: TreeEntry.fileMode)])
                    return try repository.createCommit(tree: tree, parents: [commits.last!], author: signature, committer: signature, message: "\(round).\(save)\n")
                }
                commits.append(commit)
                contents[commit] = files
            }
            try repository.merge(packs: repository.packs(), andLooseObjects: repository.looseObjects())
        }
        try repository.setReference("refs/heads/main", to: commits.last!, expected: nil, message: "test")
        let longest = try longestChain(in: folder + "/source")
        #expect(longest <= 10, "the longest chain of deltas after 40 roll-ups: \(longest)")
        #expect(packBytes(repository) < 4 * 2_000 * 40, "\(packBytes(repository)) bytes")
        try expectContents(contents, in: Repository.open(at: folder + "/source"), "rolled up 40 times")
        #expect(try gitFsck(folder + "/source") == 0)
    }

    /// The longest chain of deltas in the repository's packs, as `git verify-pack -v` counts them.
    func longestChain(in path: String) throws -> Int {
        try gitVerifyPack(path).filter { $0.hasPrefix("chain length = ") }.map { Int($0.dropFirst("chain length = ".count).prefix { $0.isNumber }) ?? 0 }.max() ?? 0
    }

    /// A folder of a megabyte or more is packed uncompressed, whole or as deltas against its
    /// previous versions, and reads back the same from every copy (git checks each copy).
    /// A pack larger than the few megabytes kept in memory goes to a temporary file of its pack
    /// folder as it is built (each file compressed or copied a megabyte at a time, the index and
    /// checksum from what was written): copied from a cloud, from a device and rolled up, it
    /// reads back whole, `git fsck` finds it sound, and no temporary file stays.
    @Test func aPackOfLargeFilesIsWrittenIntoItsFolderAsItIsBuiltAndReadsBack() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = try Repository.create(at: folder + "/source", bare: true)
        var generator = SystemRandomNumberGenerator()
        let files = (0..<3).map { _ in Data((0..<((3 << 20) / 8)).map { _ in generator.next() as UInt64 }.withUnsafeBytes { Array($0) }) }
        var tree: OID?
        var commits: [OID] = []
        for (number, data) in files.enumerated() {
            let blob = try source.writeBlob(data)
            tree = try source.updateTree(tree, [.upsert(path: "file\(number).bin", id: blob, mode: TreeEntry.fileMode)])
            commits.append(
                try source.createCommit(tree: tree!, parents: commits.suffix(1), author: signature, committer: signature, message: "file \(number)\n"))
        }
        let destination = try Repository.create(at: folder + "/destination", bare: true)
        try source.copyObjects(to: destination, from: [commits.last!], hiding: [])
        let trusted = try Repository.create(at: folder + "/trusted", bare: true)
        try destination.copyObjects(to: trusted, from: [commits[0]], hiding: [], trusted: true)
        try destination.copyObjects(to: trusted, from: [commits.last!], hiding: [commits[0]], trusted: true)
        try trusted.merge(packs: trusted.packs(), andLooseObjects: trusted.looseObjects())
        #expect(packBytes(destination) > files.count * (3 << 20), "random bytes do not compress")
        for copy in [folder + "/destination", folder + "/trusted"] {
            let repository = try Repository.open(at: copy)
            for (number, data) in files.enumerated() {
                let entry = try repository.entry(at: "file\(number).bin", in: repository.treeID(ofCommit: commits.last!))
                #expect(try entry.map { try repository.blob($0.id) } == data, "\(copy) file\(number).bin")
            }
            try repository.setReference("refs/heads/main", to: commits.last!, expected: nil, message: "test")
            #expect(try gitFsck(copy) == 0, "\(copy)")
            let left = try FileManager.default.contentsOfDirectory(atPath: copy + "/objects/pack").filter { $0.contains(".tmp-") }
            #expect(left.isEmpty, "\(copy): \(left)")
        }
    }

    @Test func aFolderOfAMegabyteIsStoredUncompressedAndReadsBack() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = try Repository.create(at: folder + "/source", bare: true)
        let blob = try source.writeBlob(Data("a note\n".utf8))
        var tree = try source.updateTree(nil, (0..<30_000).map { .upsert(path: String(format: "note%05d.txt", $0), id: blob, mode: TreeEntry.fileMode) })
        let folderBytes = try source.entries(ofTree: tree).count * (12 + 8 + 20)
        #expect(folderBytes > 1 << 20)
        var commits = [try source.createCommit(tree: tree, parents: [], author: signature, committer: signature, message: "first\n")]
        var contents: [OID: String] = [:]
        for step in 0..<6 {
            let changed = try source.writeBlob(Data("step \(step)\n".utf8))
            tree = try source.updateTree(tree, [.upsert(path: String(format: "note%05d.txt", step * 4_999), id: changed, mode: TreeEntry.fileMode)])
            commits.append(try source.createCommit(tree: tree, parents: [commits.last!], author: signature, committer: signature, message: "step \(step)\n"))
            contents[commits.last!] = "step \(step)\n"
        }
        let destination = try Repository.create(at: folder + "/destination", bare: true)
        try source.copyObjects(to: destination, from: [commits.last!], hiding: [])
        #expect(packBytes(destination) > folderBytes, "the folder is stored whole at least once, uncompressed")
        #expect(packBytes(destination) < 2 * folderBytes, "its other versions are deltas")
        let trusted = try Repository.create(at: folder + "/trusted", bare: true)
        try destination.copyObjects(to: trusted, from: [commits[3]], hiding: [], trusted: true)
        try destination.copyObjects(to: trusted, from: [commits.last!], hiding: [commits[3]], trusted: true)
        try trusted.merge(packs: trusted.packs(), andLooseObjects: trusted.looseObjects())
        for copy in [folder + "/destination", folder + "/trusted"] {
            let repository = try Repository.open(at: copy)
            for (step, commit) in commits.dropFirst().enumerated() {
                let entry = try repository.entry(at: String(format: "note%05d.txt", step * 4_999), in: repository.treeID(ofCommit: commit))
                #expect(try entry.map { String(decoding: try repository.blob($0.id), as: UTF8.self) } == contents[commit], "\(copy)")
                #expect(try repository.entries(ofTree: repository.treeID(ofCommit: commit)).count == 30_000)
            }
            try repository.setReference("refs/heads/main", to: commits.last!, expected: nil, message: "test")
            #expect(try gitFsck(copy) == 0, "\(copy)")
        }
    }
}
