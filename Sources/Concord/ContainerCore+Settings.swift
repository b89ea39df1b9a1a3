internal import ConcordMerge
internal import Foundation
internal import Git
internal import GitFormat
internal import GitStore

extension ContainerCore {
    /// The text of a tracked settings file (`.concord/policies`, `.concord/packages`) in `main`; empty when absent.
    func settingsText(_ path: String) throws -> String {
        guard let entry = try history.entry(path, in: history.tree(of: history.head())) else { return "" }
        return String(decoding: try ConcordError.wrap("cannot read \(path)") { try repository.blob(entry.id) }, as: UTF8.self)
    }

    /// Saves a tracked settings file: one commit, also written to the work tree. It travels
    /// with the container like a document; concurrent edits merge line by line.
    func saveSettings(_ path: String, text: String) throws {
        try writer.write {
            let head = try history.head()
            let headTree = try history.tree(of: head)
            let data = Data(text.utf8)
            let blob = try ConcordError.wrap("cannot write \(path)") { try repository.writeBlob(data) }
            if try history.entry(path, in: headTree)?.id == blob { return }
            let tree = try ConcordError.wrap("cannot write the tree") {
                try repository.updateTree(headTree, [.upsert(path: path, id: blob, mode: TreeEntry.fileMode)])
            }
            try workTree.write(path, data: data)
            _ = try commitMaker.commit(tree: tree, parents: head.map { [$0] } ?? [], subject: "Set \(path)", trailers: Trailers())
        }
    }
}
