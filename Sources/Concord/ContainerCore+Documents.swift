internal import ConcordMerge
internal import FoundationEssentials
internal import Git
internal import GitFormat
internal import GitStore

extension ContainerCore {
    func createFirstCommit(packagePatterns: [String]) throws {
        try writer.write {
            var text = "# Package documents: folders whose name matches one of these globs are versioned as one document.\n"
            for pattern in packagePatterns { text += "\(pattern)\n" }
            let data = Data(text.utf8)
            let blob = try ConcordError.wrap("cannot write \(ContainerLayout.packages)") { try repository.writeBlob(data) }
            let tree = try ConcordError.wrap("cannot write the first tree") {
                try repository.updateTree(nil, [.upsert(path: ContainerLayout.packages, id: blob, mode: TreeEntry.fileMode)])
            }
            try workTree.write(ContainerLayout.packages, data: data)
            _ = try commitMaker.commit(tree: tree, parents: [], subject: "Create container", trailers: Trailers())
        }
    }

    // MARK: Saving

    /// Saves a version of `document`: `content` when given (also written to the work tree),
    /// else what the work tree holds. Only that document's path is read and written. A new
    /// document whose name is a twin of an existing one (``History/refuseTwin(of:in:)``) is
    /// refused before anything is written, and so is a path the ignore rules leave out unless
    /// `force` (``IgnoreRules``).
    func save(_ document: DocumentPath, content: DocumentContent?, force: Bool = false) throws -> SaveResult {
        try writer.write {
            let head = try history.head()
            let headTree = try history.tree(of: head)
            let isPackage = try history.checkDocument(document, in: headTree)
            let rules = ignoreRules()
            if !force, let rule = rules.ignoringRule(document.value, isFolder: isPackage || workTree.kind(document.value) == .directory) {
                throw ConcordError.ignored(document.value, rule: rule)
            }
            let oldEntry = try history.documentEntry(document, in: headTree)
            if oldEntry == nil { try history.refuseTwin(of: document, in: headTree) }
            if content != nil, !isPackage, workTree.kind(document.value) == .directory, try !workTree.packageFiles(document.value, ignoring: rules).isEmpty {
                throw ConcordError.invalidPath(
                    document.value, reason: "it is a folder of documents in the work tree; remove them first, or replace the folder by the file and save it")
            }
            let limits = try limits()
            if case let .file(data)? = content { try limits.checkSize(data.count, of: document.value) }
            if case let .package(files)? = content {
                for (file, data) in files { try limits.checkSize(data.count, of: "\(document.value)/\(file)") }
            }
            if let content { try writeWorkContent(document, content, isPackage: isPackage, rules: rules) }
            let newEntry = try workTree.entry(of: document, isPackage: isPackage, storingIn: repository, ignoring: rules, limits: limits)
            CrashPoint.reach("save:objects-written")
            guard let newEntry else { throw ConcordError.missingInput(document.value) }
            if oldEntry?.id == newEntry.id && oldEntry?.mode == newEntry.mode {
                return SaveResult(document: document, version: nil, isDeletion: false)
            }
            // A file on the way that the work tree holds as a folder now (the file was replaced
            // by a folder of documents) is deleted with this version.
            let fileAbove = try history.fileAbove(document, in: headTree)
            let tree = try ConcordError.wrap("cannot write the tree") {
                try repository.updateTree(headTree, (fileAbove.map { [.remove(path: $0)] } ?? []) + [.upsert(path: document.value, id: newEntry.id, mode: newEntry.mode)])
            }
            var trailers = Trailers()
            trailers.add(Trailers.document, document.value)
            let subject = oldEntry == nil || oldEntry?.isFolder == true ? "Add \(document)" : "Save \(document)"
            let id = try commitMaker.commit(tree: tree, parents: head.map { [$0] } ?? [], subject: subject, trailers: trailers)
            return SaveResult(document: document, version: id.hex, isDeletion: false)
        }
    }

    /// Records the deletion of `document` as a version and removes it from the work tree.
    func remove(_ document: DocumentPath) throws -> SaveResult {
        try writer.write {
            let head = try history.head()
            let headTree = try history.tree(of: head)
            let isPackage = try history.checkDocument(document, in: headTree)
            guard let oldEntry = try history.documentEntry(document, in: headTree), !oldEntry.isFolder else {
                if try history.holdsFolder(document.value, in: headTree) {
                    throw ConcordError.invalidPath(document.value, reason: "it is a folder of documents; remove the documents in it")
                }
                throw ConcordError.noSuchDocument(document.value)
            }
            // An ignored document's edits are never saved: removing it leaves the file as it is.
            if !isPackage, try !checkout.workFileMatches(document.value, oldEntry), workTree.kind(document.value) != .missing,
                ignoreRules().ignoringRule(document.value, isFolder: false) == nil
            {
                throw ConcordError.unsavedChanges([document.value])
            }
            let tree = try ConcordError.wrap("cannot write the tree") {
                try repository.updateTree(headTree, [.remove(path: document.value)])
            }
            var trailers = Trailers()
            trailers.add(Trailers.document, document.value)
            let id = try commitMaker.commit(tree: tree, parents: head.map { [$0] } ?? [], subject: "Delete \(document)", trailers: trailers, updateMain: false)
            // Through the checkout journal: killed after main moved, the next writer removes the file.
            try checkout.advanceMain(from: head, to: id, message: "concord: delete \(document)")
            if isPackage, workTree.kind(document.value) == .directory { try workTree.removeTree(document.value) }
            return SaveResult(document: document, version: id.hex, isDeletion: true)
        }
    }

    /// Writes a content into the work tree (a package: its files, removing files it does not
    /// hold but those `rules` ignore).
    func writeWorkContent(_ document: DocumentPath, _ content: DocumentContent?, isPackage: Bool, rules: IgnoreRules? = nil) throws {
        switch content {
        case nil:
            if workTree.kind(document.value) == .directory { try workTree.removeTree(document.value) } else { try workTree.remove(document.value) }
        case let .file(data)?:
            if isPackage { throw ConcordError.invalidPackage(document.value, reason: "a package's content must be a folder") }
            try workTree.write(document.value, data: data)
        case let .package(files)?:
            guard isPackage else { throw ConcordError.invalidPath(document.value, reason: "it is not a package document") }
            for (file, _) in files {
                _ = try DocumentPath(file)
            }
            if workTree.kind(document.value) == .directory {
                for existing in try workTree.packageFiles(document.value, ignoring: rules) where files[existing] == nil {
                    try workTree.remove("\(document.value)/\(existing)")
                }
            }
            for (file, data) in files.sorted(by: { $0.key < $1.key }) {
                try workTree.write("\(document.value)/\(file)", data: data)
            }
        }
    }

    /// The documents in `main`, optionally those matching a glob, with their states (`editingDisabled`
    /// while a write waits for another writer, ``WaitingWrite``).
    func documents(matching pattern: String?) throws -> [DocumentInfo] {
        guard let headTree = try history.tree(of: history.head()) else { return [] }
        let patterns = try history.packagePatterns(in: headTree)
        let inConflict = Set(try history.conflictRecords(in: headTree).map(\.document))
        let busy = WaitingWrite.isWriteWaiting(gitDirectory: repository.gitDirectory)
        let glob = pattern.map(GlobPattern.init)
        var result: [DocumentInfo] = []
        func visit(_ tree: OID, _ prefix: String) throws {
            let entries = try ConcordError.wrap("cannot read the tree") { try repository.entries(ofTree: tree) }
            for entry in entries {
                let path = prefix.isEmpty ? entry.name : "\(prefix)/\(entry.name)"
                if path == ContainerLayout.settingsFolder { continue }
                let isPackage = entry.kind == .tree && patterns.matches(entry.name)
                if entry.kind == .tree && !isPackage {
                    try visit(entry.id, path)
                    continue
                }
                if let glob, !glob.matches(path) { continue }
                let document = DocumentPath(unchecked: path)
                let state = DocumentState(inConflict: inConflict.contains(document), writeWaiting: busy)
                result.append(DocumentInfo(path: document, isPackage: isPackage, state: state, contentID: entry.id.hex))
            }
        }
        try visit(headTree, "")
        return result
    }
}
