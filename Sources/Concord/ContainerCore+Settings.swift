internal import ConcordMerge
internal import FoundationEssentials
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

extension ContainerCore {
    /// Checks package patterns as `create` does: file-name globs, one a line.
    static func checkPackagePatterns(_ patterns: [String]) throws {
        for pattern in patterns where pattern.isEmpty || pattern.contains("/") || pattern.contains("\n") || pattern.hasPrefix("#") {
            throw ConcordError.failed("invalid package pattern '\(pattern)': give a file-name glob such as '*.note'")
        }
    }

    /// Replaces `.concord/packages` after checking what the new patterns would make of the
    /// documents in `main`: a folder they match becomes one package document (its files' history
    /// stays), a package they no longer match becomes its files. Refused, changing nothing, when
    /// a file's own name matches a pattern (a pattern names folders) or when a document in
    /// conflict would change what it is (resolve it first).
    func setPackagePatterns(_ patterns: [String]) throws {
        try Self.checkPackagePatterns(patterns)
        let compiled = PackagePatterns(patterns)
        let inConflict = Set(try history.conflicts().map(\.document))
        for info in try documents(matching: nil) {
            let components = info.path.value.slashSeparated()
            let owner = components.indices.first { index in compiled.matches(components[index]) }
            if !info.isPackage && owner == components.count - 1 {
                throw ConcordError.failed("'\(info.path)' is a file: a package pattern names folders (a pattern matches its name)")
            }
            let stays = info.isPackage ? owner == components.count - 1 : owner == nil
            if !stays && inConflict.contains(info.path) {
                throw ConcordError.failed(
                    "'\(info.path)' is in conflict and the new patterns would make it \(info.isPackage ? "separate files" : "part of a package"): resolve it first"
                )
            }
        }
        try saveSettings(ContainerLayout.packages, text: patterns.map { "\($0)\n" }.joined())
    }
}

extension ContainerCore {
    /// This device's limits, with the container's file size as `main` names it (``ContainerLimits``).
    func limits() throws -> ArrivalCheck.Limits {
        try ArrivalCheck.Limits.current(in: repository, containerFileSize: ContainerLimits.fileSize(inMainOf: repository))
    }
}
