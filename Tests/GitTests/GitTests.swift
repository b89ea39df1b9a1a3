import Foundation
import Git
import GitFormat
import GitStore
import Testing

@Suite struct GitTests {
    let folder = NSTemporaryDirectory() + "concord-git-" + UUID().uuidString

    @Test func oidRoundTripsThroughHex() throws {
        let hex = "0123456789abcdef0123456789abcdef01234567"
        #expect(OID(hex: hex)?.hex == hex)
        #expect(OID(hex: hex)?.short == "0123456")
        #expect(OID(hex: "xyz") == nil)
        #expect(OID(hex: String(repeating: "g", count: 40)) == nil)
    }

    @Test func failuresBecomeGitErrorsNamingTheCall() throws {
        #expect { try Repository.open(at: folder + "/absent") } throws: { error in
            guard let error = error as? GitError else { return false }
            return error.function == "git_repository_open_ext" && error.isNotFound && !error.message.isEmpty
        }
    }

    /// libgit2's code and class are values to match, with the number libgit2 gave.
    @Test func codesAndClassesAreValuesToMatch() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let repository = try Repository.create(at: folder, bare: true)
        let missing = try #require(OID(hex: String(repeating: "ab", count: 20)))
        let error = try #require(throws: GitError.self) { try repository.blob(missing) }
        #expect(error.code == .notFound && error.code.rawValue == -3 && error.isNotFound)
        #expect([.odb, .object].contains(error.errorClass) && error.isBadObject)
        #expect(GitError(code: .modified, message: "moved", function: "f").isNotFastForward)
        #expect(GitError(code: .timeout, errorClass: .net, message: "late", function: "f").isTimeout)
        #expect(GitError(message: "x", function: "f").description == "x (f, code -1)")
    }

    @Test func blobsTreesAndCommitsWithoutAWorkTree() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let repository = try Repository.create(at: folder, bare: true)
        let blob = try repository.writeBlob(Data("hello\n".utf8))
        #expect(blob == (try Repository.blobID(of: Data("hello\n".utf8))))
        #expect(try repository.blob(blob) == Data("hello\n".utf8))
        let tree = try repository.updateTree(
            nil,
            [
                .upsert(path: "a/b/c.txt", id: blob, mode: TreeEntry.fileMode),
                .upsert(path: "d.txt", id: blob, mode: TreeEntry.fileMode),
            ])
        #expect(try repository.entry(at: "a/b/c.txt", in: tree)?.id == blob)
        #expect(try repository.entry(at: "nope", in: tree) == nil)
        let pruned = try repository.updateTree(tree, [.remove(path: "a/b/c.txt")])
        #expect(try repository.entries(ofTree: pruned).map(\.name) == ["d.txt"])
        let changes = try repository.diff(tree, pruned)
        #expect(changes.map(\.path) == ["a/b/c.txt"] && changes[0].new == nil)
        #expect(try repository.diff(tree, pruned, limit: 0) == nil)
        #expect(try repository.diff(tree, pruned, limit: 1) == changes)
        let signature = Signature(name: "t", email: "t@example.invalid", time: Date(timeIntervalSince1970: 1_700_000_000))
        let first = try repository.createCommit(tree: tree, parents: [], author: signature, committer: signature, message: "one\n", updateReference: "refs/heads/main")
        let second = try repository.createCommit(tree: pruned, parents: [first], author: signature, committer: signature, message: "two\n", updateReference: "refs/heads/main")
        #expect(try repository.resolve("refs/heads/main") == second)
        #expect(try repository.commit(second).parents == [first])
        #expect(try repository.isDescendant(second, of: first))
        #expect(try repository.mergeBase(first, second) == first)
        // The reference moved on: a commit whose first parent is not the tip is refused.
        #expect {
            try repository.createCommit(tree: tree, parents: [first], author: signature, committer: signature, message: "stale\n", updateReference: "refs/heads/main")
        } throws: { error in
            (error as? GitError)?.message.contains("current tip is not the first parent") == true
        }
        #expect(throws: GitError.self) { try repository.setReference("refs/heads/main", to: first, expected: first, message: "cas") }
        // A tree that is not one, or a parent that is not a commit, is refused.
        #expect(throws: GitError.self) { try repository.createCommit(tree: blob, parents: [], author: signature, committer: signature, message: "bad\n") }
        #expect(throws: GitError.self) { try repository.createCommit(tree: tree, parents: [blob], author: signature, committer: signature, message: "bad\n") }
    }

    /// A work tree's repository reads its references, configuration and commits without
    /// libgit2: `HEAD` followed to its branch, a branch from `packed-refs` once git packed it,
    /// the configuration git wrote, a commit's message and signature as written.
    @Test func aWorkTreesReferencesConfigurationAndCommitsAreReadFromTheirFiles() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let made = try Repository.create(at: folder, bare: false)
        let tree = try made.updateTree(nil, [.upsert(path: "a.txt", id: try made.writeBlob(Data("a\n".utf8)), mode: TreeEntry.fileMode)])
        let signature = Signature(name: "Ada", email: "ada@example.invalid", time: Date(timeIntervalSince1970: 1_700_000_000), timeZoneOffsetMinutes: 90)
        let first = try made.createCommit(tree: tree, parents: [], author: signature, committer: signature, message: "one\n\nbody\n", updateReference: "refs/heads/main")
        try made.setConfig("concord.deviceName", "Ada's  laptop")
        let repository = try Repository.open(at: folder)
        #expect(repository.workDirectory == URL(fileURLWithPath: folder).resolvingSymlinksInPath().path + "/")
        #expect(try repository.resolve("HEAD") == first && repository.resolve("refs/heads/main") == first)
        #expect(try repository.resolve("refs/heads/absent") == nil)
        #expect(try repository.config("concord.devicename") == "Ada's  laptop" && repository.config("concord.absent") == nil)
        let commit = try repository.commit(first)
        #expect(commit.message == "one\n\nbody\n" && commit.author == signature && commit.tree == tree && commit.parents.isEmpty)
        let git = Process()
        git.executableURL = URL(fileURLWithPath: "/usr/bin/git")
        git.arguments = ["-C", folder, "pack-refs", "--all"]
        try git.run()
        git.waitUntilExit()
        #expect(!FileManager.default.fileExists(atPath: folder + "/.git/refs/heads/main"), "git packed the branch")
        #expect(try Repository.open(at: folder).resolve("HEAD") == first)
        #expect(throws: GitError.self) { try repository.resolve("refs/../config") }
        // A configuration that includes another file is read by libgit2, includes followed.
        try "[concord]\n\tincluded = yes\n".write(toFile: folder + "/.git/more.config", atomically: true, encoding: .utf8)
        try made.setConfig("include.path", "more.config")
        #expect(try Repository.open(at: folder).config("concord.included") == "yes")
        #expect(try Repository.open(at: folder).config("concord.deviceName") == "Ada's  laptop")
    }

    @Test func sameEntryComparesOnePathAcrossTwoTrees() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let repository = try Repository.create(at: folder, bare: true)
        let one = try repository.writeBlob(Data("one\n".utf8)), two = try repository.writeBlob(Data("two\n".utf8))
        let before = try repository.updateTree(
            nil,
            [
                .upsert(path: "a/b/c.txt", id: one, mode: TreeEntry.fileMode),
                .upsert(path: "a/d.txt", id: one, mode: TreeEntry.fileMode),
                .upsert(path: "e", id: one, mode: TreeEntry.fileMode),
            ])
        let after = try repository.updateTree(
            try repository.updateTree(before, [.remove(path: "e")]),
            [
                .upsert(path: "a/d.txt", id: two, mode: TreeEntry.fileMode),
                .upsert(path: "e/f.txt", id: one, mode: TreeEntry.fileMode),
                .upsert(path: "x.sh", id: one, mode: TreeEntry.executableMode),
            ])
        let executable = try repository.updateTree(after, [.upsert(path: "x.sh", id: one, mode: TreeEntry.fileMode)])
        #expect(try repository.diff(before, after).map(\.path) == ["a/d.txt", "e", "e/f.txt", "x.sh"])
        #expect(try repository.diff(before, after).first { $0.path == "e" }?.new == nil)
        #expect(try repository.sameEntry(at: "a/b/c.txt", in: before, after))
        #expect(try !repository.sameEntry(at: "a/d.txt", in: before, after))
        #expect(try !repository.sameEntry(at: "e", in: before, after))
        #expect(try !repository.sameEntry(at: "e/f.txt", in: before, after))
        #expect(try repository.sameEntry(at: "absent/g.txt", in: before, after))
        #expect(try !repository.sameEntry(at: "x.sh", in: after, executable))
        #expect(try !repository.sameEntry(at: "a/b/c.txt", in: nil, after))
        #expect(try repository.sameEntry(at: "absent", in: nil, after))
    }

    @Test func writesInOnePackAreStoredBeforeAReferenceNamesThem() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let repository = try Repository.create(at: folder, bare: true)
        let signature = Signature(name: "t", email: "t@example.invalid", time: Date(timeIntervalSince1970: 1_700_000_000))
        let first = try repository.createCommit(
            tree: repository.updateTree(nil, []), parents: [], author: signature, committer: signature, message: "one\n", updateReference: "refs/heads/main")
        let large = Data(repeating: 7, count: 3000)
        let (commit, blobs) = try repository.writingOnePack(streamingAbove: 2000) {
            let blobs = try (0..<50).map { try repository.writeBlob(Data("document \($0)\n".utf8)) } + [repository.writeBlob(large)]
            let tree = try repository.updateTree(nil, blobs.enumerated().map { .upsert(path: "f\($0.offset % 5)/d\($0.offset)", id: $0.element, mode: TreeEntry.fileMode) })
            let commit = try repository.createCommit(tree: tree, parents: [first], author: signature, committer: signature, message: "two\n", updateReference: "refs/heads/main")
            return (commit, blobs)
        }
        let packs = try FileManager.default.contentsOfDirectory(atPath: folder + "/objects/pack").filter { $0.hasSuffix(".pack") }
        #expect(packs.count == 1)
        let reopened = try Repository.open(at: folder)
        #expect(try reopened.resolve("refs/heads/main") == commit)
        #expect(try reopened.blob(blobs[7]) == Data("document 7\n".utf8))
        #expect(try reopened.blob(blobs[50]) == large)
        #expect(try reopened.entry(at: "f3/d48", in: reopened.treeID(ofCommit: commit))?.id == blobs[48])

        struct Stop: Error {}
        var dropped: OID?
        #expect(throws: Stop.self) {
            try repository.writingOnePack {
                dropped = try repository.writeBlob(Data("never stored\n".utf8))
                throw Stop()
            }
        }
        #expect(try !Repository.open(at: folder).contains(#require(dropped)))
        #expect(try repository.resolve("refs/heads/main") == commit)
    }

    @Test func copyingObjectsSendsOnlyWhatChanged() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = try Repository.create(at: folder + "/source", bare: true)
        let destination = try Repository.create(at: folder + "/destination", bare: true)
        let signature = Signature(name: "t", email: "t@example.invalid", time: Date(timeIntervalSince1970: 1_700_000_000))
        let blobs = try (0..<40).map { try source.writeBlob(Data("document \($0)\n".utf8)) }
        let tree = try source.updateTree(
            nil, blobs.enumerated().map { .upsert(path: "f\($0.offset % 4)/g\($0.offset % 8)/d\($0.offset)", id: $0.element, mode: TreeEntry.fileMode) })
        let first = try source.createCommit(tree: tree, parents: [], author: signature, committer: signature, message: "one\n")
        // Everything: 1 commit, the root, 4 + 8 folders, 40 files.
        #expect(try source.copyObjects(to: destination, from: [first], hiding: []) == 1 + 1 + 12 + 40)
        let edited = try source.writeBlob(Data("edited\n".utf8))
        let second = try source.createCommit(
            tree: source.updateTree(tree, [.upsert(path: "f1/g5/d13", id: edited, mode: TreeEntry.fileMode)]),
            parents: [first], author: signature, committer: signature, message: "two\n")
        // Only what changed: the commit, the root, f1, f1/g5 and the new file.
        #expect(try source.copyObjects(to: destination, from: [second], hiding: [first]) == 5)
        #expect(try source.copyObjects(to: destination, from: [second], hiding: [second]) == 0)
        let reopened = try Repository.open(at: folder + "/destination")
        #expect(try reopened.parents(ofCommit: second) == [first])
        #expect(try reopened.blob(reopened.entry(at: "f1/g5/d13", in: reopened.treeID(ofCommit: second))!.id) == Data("edited\n".utf8))
        #expect(try reopened.blob(reopened.entry(at: "f2/g2/d2", in: reopened.treeID(ofCommit: second))!.id) == Data("document 2\n".utf8))
    }

    @Test func mergeFileMergesSeparateEditsAndMarksOverlaps() throws {
        let base = Data("a\nb\nc\nd\ne\n".utf8)
        let clean = try MergeFile.merge(base: base, ours: Data("A\nb\nc\nd\ne\n".utf8), theirs: Data("a\nb\nc\nd\nE\n".utf8))
        #expect(clean.automergeable && clean.content == Data("A\nb\nc\nd\nE\n".utf8))
        let overlap = try MergeFile.merge(
            base: base, ours: Data("X\nb\nc\nd\ne\n".utf8), theirs: Data("Y\nb\nc\nd\ne\n".utf8),
            labels: .init(ours: "iPhone", theirs: "iPad"))
        #expect(!overlap.automergeable)
        let text = String(decoding: overlap.content, as: UTF8.self)
        #expect(text.contains("<<<<<<< iPhone") && text.contains(">>>>>>> iPad"))
    }

    @Test func configIsTheRepositorysOwn() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let repository = try Repository.create(at: folder, bare: false)
        #expect(try repository.config("concord.deviceId") == nil)
        try repository.setConfig("concord.deviceId", "abc")
        #expect(try repository.config("concord.deviceId") == "abc")
        try repository.setConfig("concord.deviceId", nil)
        #expect(try repository.config("concord.deviceId") == nil)
        #expect(try repository.config("user.name") == nil, "the user's global configuration is ignored")
    }
}
