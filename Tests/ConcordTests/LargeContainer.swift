import Foundation
import Git
import GitFormat
import GitStore

/// Builds large containers directly with libgit2 (one tree write, one commit), not with
/// one save per document, and without writing the documents into the work tree.
enum LargeContainer {
    static func fill(_ root: String, documents count: Int, perFolder: Int = 1_000) throws {
        let repository = try Repository.open(at: root)
        let blob = try repository.writeBlob(Data("a document\n".utf8))
        let updates = (0..<count).map { index in
            TreeUpdate.upsert(path: "folder\(index / perFolder)/doc\(index).txt", id: blob, mode: TreeEntry.fileMode)
        }
        let head = try repository.resolve("refs/heads/main")!
        let tree = try repository.updateTree(try repository.treeID(ofCommit: head), updates)
        let signature = Signature(name: "fixture", email: "fixture@concord.invalid", time: Date())
        _ = try repository.createCommit(
            tree: tree, parents: [head], author: signature, committer: signature,
            message: "Import \(count) documents\n", updateReference: "refs/heads/main")
    }
}
