import Foundation
import GitFormat
import GitStore
import Testing

@testable import Git

@Suite struct MaintenanceTests {
    let folder = NSTemporaryDirectory() + "concord-maintenance-" + UUID().uuidString

    /// A commit that only a reference's log still names (the cloud moved its main back) stays
    /// through a full repack, as git gc keeps it: dropping it leaves the log naming a missing
    /// commit, which git fsck reports as an error.
    @Test func aFullRepackKeepsWhatReferenceLogsName() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let repository = try Repository.create(at: folder, bare: false)
        let signature = Signature(name: "t", email: "t@example.invalid", time: Date())
        func commit(_ text: String, parents: [OID]) throws -> OID {
            let blob = try repository.writeBlob(Data(text.utf8))
            let tree = try repository.updateTree(nil, [.upsert(path: "note.txt", id: blob, mode: TreeEntry.fileMode)])
            return try repository.createCommit(tree: tree, parents: parents, author: signature, committer: signature, message: text)
        }
        let first = try commit("first\n", parents: [])
        let second = try commit("second\n", parents: [first])
        let away = try commit("moved away\n", parents: [first])
        try repository.setReference("refs/heads/main", to: second, expected: nil, message: "main")
        try repository.forceReference("refs/remotes/origin/main", to: first, message: "fetch")
        try repository.forceReference("refs/remotes/origin/main", to: away, message: "fetch")
        try repository.forceReference("refs/remotes/origin/main", to: first, message: "fetch: the cloud moved back")
        try repository.repackAll()
        #expect(repository.contains(away))
        #expect(try gitFsck(folder, strict: false) == 0)
    }

    /// A roll-up of the pack of an import with the loose objects of a few saves: the import's
    /// entries are copied as stored (no folder of it read), and each save's folders are stored
    /// as deltas against their previous versions, which are in the new pack by then (seen
    /// failing, 0 deltas, with the loose commits left unwalked).
    @Test func aRollUpCopiesAnImportAsStoredAndStoresLooseSavesAsDeltas() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let repository = try Repository.create(at: folder, bare: true)
        let signature = Signature(name: "t", email: "t@example.invalid", time: Date())
        let path = { (index: Int) in String(format: "f%02d/doc%04d.txt", index / 20, index) }
        var (tree, commit) = try repository.writingOnePack {
            let updates = try (0..<2_000).map { TreeUpdate.upsert(path: path($0), id: try repository.writeBlob(Data("document \($0)\n".utf8)), mode: TreeEntry.fileMode) }
            let tree = try repository.updateTree(nil, updates)
            return (tree, try repository.createCommit(tree: tree, parents: [], author: signature, committer: signature, message: "import\n"))
        }
        for save in 0..<5 {
            let blob = try repository.writeBlob(Data("saved \(save)\n".utf8))
            tree = try repository.updateTree(tree, [.upsert(path: path(save * 401), id: blob, mode: TreeEntry.fileMode)])
            commit = try repository.createCommit(tree: tree, parents: [commit], author: signature, committer: signature, message: "save \(save)\n")
        }
        try repository.setReference("refs/heads/main", to: commit, expected: nil, message: "test")
        #expect(repository.packs().count == 1 && repository.looseObjects().count == 20)
        let before = repository.store.reads
        try repository.merge(packs: repository.packs(), andLooseObjects: repository.looseObjects())
        let after = repository.store.reads
        let folders = after.packed + after.recent - before.packed - before.recent
        #expect(folders <= 30, "objects read from packs and recent folders by the roll-up: \(folders) (\(before) before, \(after) after)")
        #expect(repository.packs().count == 1 && repository.looseObjects().isEmpty)
        #expect(try gitFsck(folder) == 0)
        let deltas = try gitVerifyPack(folder).filter { $0.split(separator: " ").count == 7 }.count
        #expect(deltas >= 10, "the saves' folders stored as deltas: \(deltas) deltas")
    }

    /// Three commits stored as three packs plus loose objects: one merge leaves one pack holding
    /// every object, and nothing else.
    @Test func mergingPacksKeepsEveryObjectInOnePack() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let repository = try Repository.create(at: folder, bare: true)
        let signature = Signature(name: "t", email: "t@example.invalid", time: Date())
        var parent: OID?
        var blobs: [OID] = []
        for index in 0..<3 {
            try repository.writingOnePack {
                let blob = try repository.writeBlob(Data("content \(index)\n".utf8))
                blobs.append(blob)
                let tree = try repository.updateTree(nil, [.upsert(path: "doc\(index).txt", id: blob, mode: TreeEntry.fileMode)])
                parent = try repository.createCommit(
                    tree: tree, parents: parent.map { [$0] } ?? [], author: signature, committer: signature, message: "c\(index)\n", updateReference: "refs/heads/main")
            }
        }
        blobs.append(try repository.writeBlob(Data("loose and unreachable\n".utf8)))
        #expect(repository.packs().count == 3 && repository.looseObjects().count == 1)
        let report = try repository.merge(packs: repository.packs(), andLooseObjects: repository.looseObjects())
        #expect(report.packsMerged == 3 && report.looseObjectsPacked == 1)
        #expect(repository.packs().count == 1 && repository.looseObjects().isEmpty)
        for (index, blob) in blobs.enumerated() {
            #expect(try repository.blob(blob).isEmpty == false, "object \(index) still readable")
        }

        let full = try repository.repackAll()
        #expect(full.objectsPruned == 1, "the unreachable blob goes")
        #expect(!(try Repository.open(at: folder).contains(blobs[3])))
        for blob in blobs.prefix(3) { #expect(try repository.blob(blob).isEmpty == false) }
        let again = try repository.repackAll()
        #expect(again.objectsPruned == 0 && repository.packs().count == 1, "a repack identical to the pack there keeps it")
        let reopened = try Repository.open(at: folder)
        for blob in blobs.prefix(3) { #expect(try reopened.blob(blob).isEmpty == false) }
    }
}
