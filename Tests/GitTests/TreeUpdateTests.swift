import Foundation
import Git
import GitFormat
import GitStore
import Testing

/// `updateTree` rewrites only the folders on the updated paths, splicing their stored bytes:
/// whatever the updates, the tree it writes is the one libgit2's tree builder writes for the
/// same entries, and a path through a file is refused without a tree being returned.
@Suite struct TreeUpdateTests {
    let folder = NSTemporaryDirectory() + "concord-treeupdate-" + UUID().uuidString

    /// A small deterministic generator (the same steps on every run).
    struct Steps {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    /// The tree libgit2's tree builder writes for `files` (path → id and mode), folder by folder.
    func built(_ files: [String: (id: OID, mode: UInt32)], in repository: Repository) throws -> OID {
        var direct: [TreeEntry] = []
        var below: [String: [String: (id: OID, mode: UInt32)]] = [:]
        for (path, file) in files {
            let parts = path.split(separator: "/", maxSplits: 1).map(String.init)
            if parts.count == 1 {
                direct.append(TreeEntry(name: path, id: file.id, mode: file.mode))
            } else {
                below[parts[0], default: [:]][parts[1]] = file
            }
        }
        for (name, files) in below { direct.append(TreeEntry(name: name, id: try built(files, in: repository), mode: TreeEntry.treeMode)) }
        return try repository.writeTree(direct)
    }

    @Test func updatesGiveTheTreeTheBuilderWritesForTheSameEntries() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let repository = try Repository.create(at: folder, bare: true)
        let blobs = try (0..<4).map { try repository.writeBlob(Data("content \($0)\n".utf8)) }
        // Names whose order differs from their folders' ("a" < "a-b" < "a.txt" < "a/"), and a wide folder.
        let names = ["a", "a-b", "a.txt", "b", "z"]
        var files: [String: (id: OID, mode: UInt32)] = [:]
        for index in 0..<3_000 { files[String(format: "wide/n%05d", index)] = (blobs[index % 4], TreeEntry.fileMode) }
        var tree = try repository.updateTree(nil, files.map { .upsert(path: $0.key, id: $0.value.id, mode: $0.value.mode) })
        #expect(tree == (try built(files, in: repository)))
        var steps = Steps(state: 7)
        var refused = 0
        for _ in 0..<300 {
            var updates: [TreeUpdate] = []
            for _ in 0...steps.next(6) {
                let path =
                    steps.next(5) == 0
                    ? String(format: "wide/n%05d", steps.next(3_200))
                    : (0...steps.next(3)).map { _ in names[steps.next(names.count)] }.joined(separator: "/")
                updates.append(
                    steps.next(10) < 7
                        ? .upsert(path: path, id: blobs[steps.next(4)], mode: steps.next(4) == 0 ? TreeEntry.executableMode : TreeEntry.fileMode)
                        : .remove(path: path))
            }
            // The model: each path's updates in order, a path's before those below it.
            var model = files
            var throughFile = false
            let ordered = updates.enumerated().sorted { a, b in
                let (x, y) = (a.element.path.split(separator: "/"), b.element.path.split(separator: "/"))
                return x == y ? a.offset < b.offset : x.lexicographicallyPrecedes(y) { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            }.map(\.element)
            for update in ordered {
                let parts = update.path.split(separator: "/")
                if (1..<parts.count).contains(where: { model[parts[..<$0].joined(separator: "/")] != nil }) { throughFile = true }
                for key in model.keys where key == update.path || key.hasPrefix(update.path + "/") { model[key] = nil }
                if case let .upsert(path, id, mode) = update { model[path] = (id, mode) }
            }
            if throughFile {
                #expect(throws: GitError.self, "\(updates)") { try repository.updateTree(tree, updates) }
                refused += 1
                continue
            }
            let before = tree
            tree = try repository.updateTree(tree, updates)
            files = model
            #expect(tree == (try built(files, in: repository)), "\(updates)")
            // The differences updateTree remembers are those a fresh comparison finds.
            #expect(try repository.diff(before, tree) == Repository.open(at: folder).diff(before, tree), "\(updates)")
        }
        #expect(refused > 10 && files.count > 2_000, "\(refused) refused, \(files.count) files")
        try repository.setReference(
            "refs/heads/main",
            to: repository.createCommit(
                tree: tree, parents: [], author: Signature(name: "t", email: "t@example.invalid", time: Date(timeIntervalSince1970: 1_700_000_000)),
                committer: Signature(name: "t", email: "t@example.invalid", time: Date(timeIntervalSince1970: 1_700_000_000)), message: "all\n"),
            expected: nil, message: "test")
        #expect(try gitFsck(folder) == 0)
    }

    @Test func anUpsertOfAMissingObjectOrAnInvalidNameIsRefused() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let repository = try Repository.create(at: folder, bare: true)
        let blob = try repository.writeBlob(Data("x\n".utf8))
        let missing = OID(hex: String(repeating: "ab", count: 20))!
        #expect(throws: GitError.self) { try repository.updateTree(nil, [.upsert(path: "a.txt", id: missing, mode: TreeEntry.fileMode)]) }
        #expect(throws: GitError.self) { try repository.updateTree(nil, [.upsert(path: "a", id: blob, mode: TreeEntry.treeMode)]) }
        for path in ["", "a//b", "../x", "a/./b", ".git/config", "A/.GIT"] {
            #expect(throws: GitError.self, "\(path)") { try repository.updateTree(nil, [.upsert(path: path, id: blob, mode: TreeEntry.fileMode)]) }
        }
    }

    /// Two names that differ only by Unicode normalization (NFC and NFD `café`) are two entries:
    /// updating one never replaces the other, and looking one up never answers with the other,
    /// whichever was looked up first (Swift's `String ==` takes them for one name).
    @Test func namesThatDifferOnlyByNormalizationAreTwoEntries() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        let repository = try Repository.create(at: folder, bare: true)
        let one = try repository.writeBlob(Data("one\n".utf8)), two = try repository.writeBlob(Data("two\n".utf8))
        let both = try repository.updateTree(
            nil, [.upsert(path: "\(composed)/x", id: one, mode: TreeEntry.fileMode), .upsert(path: "\(decomposed)/x", id: two, mode: TreeEntry.fileMode)])
        #expect(try repository.entries(ofTree: both).map { Array($0.name.utf8) } == [Array(decomposed.utf8), Array(composed.utf8)])
        let changed = try repository.updateTree(both, [.upsert(path: "\(composed)/x", id: two, mode: TreeEntry.fileMode), .remove(path: "\(decomposed)/x")])
        #expect(try repository.entries(ofTree: changed).map { Array($0.name.utf8) } == [Array(composed.utf8)])
        for order in [[composed, decomposed], [decomposed, composed]] {
            let reader = try Repository.open(at: folder)
            for name in order {
                #expect(try reader.entry(at: "\(name)/x", in: both)?.id == (name.utf8.elementsEqual(composed.utf8) ? one : two), "\(order)")
                #expect(try reader.entry(at: name, in: both).map { Array($0.name.utf8) } == Array(name.utf8), "\(order)")
            }
        }
    }
}
