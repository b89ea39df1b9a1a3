import Foundation
import Git
import GitFormat
import GitStore
import Testing

/// Comparing two folders reads their stored bytes (a version stored as a delta is rebuilt from
/// its base's bytes read before) and passes over the entries stored alike: whatever the
/// changes, and however the versions are stored, the differences are those `git diff-tree`
/// finds, and a folder whose entries are out of git's order or malformed is refused.
@Suite struct TreeComparisonTests {
    let folder = NSTemporaryDirectory() + "concord-treecomparison-" + UUID().uuidString
    let signature = Signature(name: "t", email: "t@example.invalid", time: Date(timeIntervalSince1970: 1_700_000_000))

    /// A small deterministic generator (the same steps on every run).
    struct Steps {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    /// `git diff-tree -r` between two trees, as lines `old-mode new-mode old-id new-id path`.
    func gitDifferences(_ old: OID, _ new: OID, in repository: String) throws -> [String] {
        let text = String(decoding: try git(["diff-tree", "-r", "--no-renames", "--raw", "--abbrev=40", old.hex, new.hex], in: repository), as: UTF8.self)
        return text.split(separator: "\n").map { line in
            let fields = line.dropFirst().split(separator: "\t", maxSplits: 1)
            let parts = fields[0].split(separator: " ")
            return "\(parts[0]) \(parts[1]) \(parts[2]) \(parts[3]) \(fields[1])"
        }
    }

    /// Concord's differences between two trees, in the same form.
    func differences(_ old: OID, _ new: OID, in repository: Repository) throws -> [String] {
        let zero = String(repeating: "0", count: 40)
        func mode(_ entry: TreeEntry?) -> String { entry.map { String(format: "%06o", $0.mode) } ?? "000000" }
        return try repository.diff(old, new).map { change in
            "\(mode(change.old)) \(mode(change.new)) \(change.old?.id.hex ?? zero) \(change.new?.id.hex ?? zero) \(change.path)"
        }
    }

    /// A folder of 3,000 files and a subfolder, then 60 commits that each change one to four
    /// entries: files edited, added, removed, made executable, replaced by a folder or a
    /// folder by a file, with names whose order differs from their folders' ("a" < "a-b" <
    /// "a.txt" < "a/"). All loose: no object is stored as a delta yet.
    func history(in repository: Repository) throws -> [OID] {
        let blobs = try (0..<8).map { try repository.writeBlob(Data("content \($0)\n".utf8)) }
        var updates: [TreeUpdate] = (0..<3_000).map { .upsert(path: String(format: "n%05d.txt", $0), id: blobs[$0 % 8], mode: TreeEntry.fileMode) }
        updates += (0..<50).map { .upsert(path: String(format: "sub/m%03d", $0), id: blobs[$0 % 8], mode: TreeEntry.fileMode) }
        var tree = try repository.updateTree(nil, updates)
        var commits = [try repository.createCommit(tree: tree, parents: [], author: signature, committer: signature, message: "first\n")]
        var steps = Steps(state: 11)
        let names = ["a", "a-b", "a.txt", "sub/a", "sub/m010", "n00000.txt", "n01500.txt", "n02999.txt", "z"]
        for step in 0..<60 {
            var changes: [TreeUpdate] = []
            for _ in 0...steps.next(4) {
                let path = steps.next(3) == 0 ? String(format: "n%05d.txt", steps.next(3_000)) : names[steps.next(names.count)]
                switch steps.next(6) {
                case 0: changes.append(.remove(path: path))
                case 1: changes.append(.upsert(path: path + "/inner", id: blobs[steps.next(8)], mode: TreeEntry.fileMode))
                case 2: changes.append(.upsert(path: path, id: blobs[steps.next(8)], mode: TreeEntry.executableMode))
                default: changes.append(.upsert(path: path, id: blobs[steps.next(8)], mode: TreeEntry.fileMode))
                }
            }
            // A path through a file is refused; replace the file instead.
            if let next = try? repository.updateTree(tree, changes) {
                tree = next
            } else {
                let removals = changes.map { TreeUpdate.remove(path: String($0.path.split(separator: "/")[0])) }
                tree = try repository.updateTree(tree, removals + changes)
            }
            commits.append(try repository.createCommit(tree: tree, parents: [commits.last!], author: signature, committer: signature, message: "step \(step)\n"))
        }
        return commits
    }

    /// ``history(in:)`` made in `source.git` and copied into `copy.git` as Concord's own packs
    /// (the wide folder's versions stored as chains of deltas): its commits and the copy.
    func copiedHistory() throws -> (commits: [OID], copy: Repository) {
        let source = try Repository.create(at: folder + "/source.git", bare: true)
        let commits = try history(in: source)
        let copy = try Repository.create(at: folder + "/copy.git", bare: true)
        try source.copyObjects(to: copy, from: [commits.last!], hiding: [], trusted: true)
        return (commits, copy)
    }

    /// Looking entries up by name in a folder stored in a pack (whole or as a delta, wide or
    /// narrow) reads its bytes with Concord's reader and searches them: every path of every
    /// version finds what `git ls-tree -r -t` lists, and paths that are absent (or only a
    /// prefix of an entry's name, or a folder's name with a file's ending) find nothing.
    @Test func namesLookedUpInAFolderFindWhatGitLists() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let commits = try copiedHistory().commits
        let repository = try Repository.open(at: folder + "/copy.git")
        for commit in commits.enumerated().filter({ $0.offset % 7 == 0 }).map(\.element) {
            let tree = try repository.treeID(ofCommit: commit)
            let listed = String(decoding: try git(["ls-tree", "-r", "-t", "--full-tree", tree.hex], in: folder + "/copy.git"), as: UTF8.self)
            var names = Set<String>()
            for line in listed.split(separator: "\n") {
                let fields = line.split(separator: "\t", maxSplits: 1)
                let parts = fields[0].split(separator: " ")
                let name = String(fields[1])
                names.insert(name)
                let found = try repository.entry(at: name, in: tree)
                #expect(found.map { "\(String(format: "%06o", $0.mode)) \($0.id.hex)" } == "\(parts[0]) \(parts[2])", "\(name) in \(tree.short)")
            }
            let absentPaths = ["n", "n0000", "n00000", "n00000.tx", "n03000.txt", "a.tx", "sub.txt", "su", "zz", "0", "~", "sub/m0", "sub/m0100", "sub/zz", "sub/a.tx"]
            for absent in absentPaths where !names.contains(absent) {
                #expect(try repository.entry(at: absent, in: tree) == nil, "\(absent) in \(tree.short)")
            }
        }
    }

    /// The first lookup in a wide folder reads its first entries before indexing it: with a new
    /// handle for each name (nothing indexed yet), the names near the start, absent names and
    /// names further on are found as `git ls-tree` lists them.
    @Test func aFirstLookupInAWideFolderFindsWhatGitLists() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let commits = try copiedHistory().commits
        for commit in [commits[commits.count / 2], commits.last!] {
            let tree = try Repository.open(at: folder + "/copy.git").treeID(ofCommit: commit)
            let listed = String(decoding: try git(["ls-tree", "--full-tree", tree.hex], in: folder + "/copy.git"), as: UTF8.self)
            let lines = listed.split(separator: "\n")
            #expect(lines.count > 100)
            var names = Set<String>()
            for line in lines.prefix(70) + lines.suffix(3) {
                let fields = line.split(separator: "\t", maxSplits: 1)
                let parts = fields[0].split(separator: " ")
                names.insert(String(fields[1]))
                let found = try Repository.open(at: folder + "/copy.git").entry(at: String(fields[1]), in: tree)
                #expect(found.map { "\(String(format: "%06o", $0.mode)) \($0.id.hex)" } == "\(parts[0]) \(parts[2])", "\(fields[1]) in \(tree.short)")
            }
            for absent in ["n", "n0000", "n00000", "n00000.tx", "n00001.txt0", "a.tx", "sub.txt", "su", "zz", "0", "~", " ", "."] where !names.contains(absent) {
                #expect(try Repository.open(at: folder + "/copy.git").entry(at: absent, in: tree) == nil, "\(absent) in \(tree.short)")
            }
        }
    }

    @Test func versionsStoredAsDeltasCompareAsGitComparesThem() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (commits, copy) = try copiedHistory()
        try copy.setReference("refs/heads/main", to: commits.last!, expected: nil, message: "test")
        // The copy holds the versions of the wide folder as chains of deltas.
        let packs = try FileManager.default.contentsOfDirectory(atPath: folder + "/copy.git/objects/pack").filter { $0.hasSuffix(".idx") }
        let verified = String(decoding: try git(["verify-pack", "-v", "objects/pack/" + packs[0]], in: folder + "/copy.git"), as: UTF8.self)
        #expect(verified.contains("chain length = 3"), "\(verified.suffix(300))")
        #expect(try gitFsck(folder + "/copy.git") == 0)

        for (name, path) in [("the source, all loose", folder + "/source.git"), ("the copy, in deltas", folder + "/copy.git")] {
            // A new handle each time: nothing read before.
            let repository = try Repository.open(at: path)
            let trees = try commits.map { try repository.treeID(ofCommit: $0) }
            var changed = 0
            for (old, new) in zip(trees, trees.dropFirst()) {
                let expected = try gitDifferences(old, new, in: path)
                #expect(try differences(old, new, in: repository) == expected, "\(name): \(old.short)..\(new.short)")
                changed += expected.count
            }
            #expect(changed > 100, "\(name): \(changed) changes in all")
            // Far apart, backwards, and from nothing (every file added).
            #expect(try differences(trees[0], trees[60], in: repository) == gitDifferences(trees[0], trees[60], in: path), "\(name)")
            #expect(try differences(trees[45], trees[7], in: repository) == gitDifferences(trees[45], trees[7], in: path), "\(name)")
            let empty = try repository.writeTree([])
            #expect(try repository.diff(nil, trees[30]).count == (try differences(empty, trees[30], in: repository)).count)
            #expect(try differences(empty, trees[30], in: repository) == gitDifferences(empty, trees[30], in: path), "\(name)")
        }
    }

    @Test func aFolderOutOfOrderOrMalformedIsRefused() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/repository.git"
        let repository = try Repository.create(at: path, bare: true)
        let blob = try repository.writeBlob(Data("x\n".utf8))
        func entry(_ mode: String, _ name: String) -> Data { Data("\(mode) \(name)\0".utf8) + Data(blob.bytes) }
        func tree(_ entries: [Data]) throws -> OID {
            let written = try git(["hash-object", "-t", "tree", "--literally", "-w", "--stdin"], in: path, input: entries.reduce(Data(), +))
            return OID(hex: String(decoding: written, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))!
        }
        let names = (0..<200).map { String(format: "f%03d", $0) }
        let good = try tree(names.map { entry("100644", $0) })
        func folderEntry(_ name: String) -> Data { Data("40000 \(name)\0".utf8) + Data(good.bytes) }
        var swapped = names
        swapped.swapAt(120, 121)
        var twice = names
        twice.insert("f077", at: 77)
        let cases: [(String, [Data])] = [
            ("two names swapped", swapped.map { entry("100644", $0) }),
            ("a name listed twice", twice.map { entry("100644", $0) }),
            ("a folder before a file it follows in git's order", [folderEntry("a"), entry("100644", "a.txt")]),
            ("a mode that is not octal", names.map { entry($0 == "f150" ? "100944" : "100644", $0) }),
            ("an entry cut short", names.map { entry("100644", $0) } + [Data("100644 last\0abc".utf8)]),
            ("a file and a folder of one name, side by side", [entry("100644", "a"), folderEntry("a")]),
            ("a file and a folder of one name, names between", [entry("100644", "a"), entry("100644", "a-b"), entry("100644", "a.txt"), folderEntry("a")]),
            (
                "a file and a folder of one name, many names between",
                [entry("100644", "a")] + (0..<40).map { entry("100644", String(format: "a-%02d", $0)) } + [folderEntry("a"), entry("100644", "b")]
            ),
        ]
        for (what, entries) in cases {
            let bad = try tree(entries)
            let fresh = try Repository.open(at: path)
            #expect(throws: GitError.self, "\(what), against nothing") { try fresh.diff(nil, bad) }
            #expect(throws: GitError.self, "\(what), against a folder in order") { try fresh.diff(good, bad) }
        }
        // The same entries in order compare cleanly.
        #expect(try repository.diff(nil, good).count == 200)
        let inOrder = try tree([entry("100644", "a.txt"), folderEntry("a")]), shorter = try tree(names.dropLast().map { entry("100644", $0) })
        #expect(try repository.diff(nil, inOrder).count == 201)
        #expect(try repository.diff(good, shorter).map(\.path) == ["f199"])
    }
}
