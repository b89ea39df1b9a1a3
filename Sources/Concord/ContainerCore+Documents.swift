internal import ConcordMerge
internal import Foundation
internal import Git

extension ContainerCore {
    func createFirstCommit(packagePatterns: [String]) throws {
        try writer.write {
            var text = "# Package documents: folders whose name matches one of these globs are versioned as one document.\n"
            for pattern in packagePatterns { text += "\(pattern)\n" }
            let data = Data(text.utf8)
            let blob = try ConcordError.wrap("cannot write \(Self.packagesFile)") { try repository.writeBlob(data) }
            let tree = try ConcordError.wrap("cannot write the first tree") {
                try repository.updateTree(nil, [.upsert(path: Self.packagesFile, id: blob, mode: TreeEntry.fileMode)])
            }
            try workTree.write(Self.packagesFile, data: data)
            _ = try commitMaker.commit(tree: tree, parents: [], subject: "Create container", trailers: Trailers())
        }
    }

    // MARK: Saving

    /// Saves a version of `document`: `content` when given (also written to the work tree),
    /// else what the work tree holds. Only that document's path is read and written.
    func save(_ document: DocumentPath, content: DocumentContent?) throws -> SaveResult {
        try writer.write {
            let head = try history.head()
            let headTree = try history.tree(of: head)
            let isPackage = try history.checkDocument(document, in: headTree)
            if case let .file(data)? = content { try checkSize(data.count, of: document.value) }
            if case let .package(files)? = content {
                for (file, data) in files { try checkSize(data.count, of: "\(document.value)/\(file)") }
            }
            if let content { try writeWorkContent(document, content, isPackage: isPackage) }
            let newEntry = try entryFromWorkTree(document, isPackage: isPackage)
            CrashPoint.reach("save:objects-written")
            guard let newEntry else {
                if try history.entry(document.value, in: headTree) != nil {
                    throw ConcordError.missingInput(document.value)
                }
                throw ConcordError.missingInput(document.value)
            }
            let oldEntry = try history.entry(document.value, in: headTree)
            if oldEntry?.id == newEntry.id && oldEntry?.mode == newEntry.mode {
                return SaveResult(document: document, version: nil, isDeletion: false)
            }
            let tree = try ConcordError.wrap("cannot write the tree") {
                try repository.updateTree(headTree, [.upsert(path: document.value, id: newEntry.id, mode: newEntry.mode)])
            }
            var trailers = Trailers()
            trailers.add(Trailers.document, document.value)
            let subject = oldEntry == nil ? "Add \(document)" : "Save \(document)"
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
            guard let oldEntry = try history.entry(document.value, in: headTree) else {
                throw ConcordError.noSuchDocument(document.value)
            }
            if !isPackage, try !checkout.workFileMatches(document.value, oldEntry), workTree.kind(document.value) != .missing {
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

    /// The tree entry the work tree's copy of `document` would have, writing its objects; nil when absent.
    func entryFromWorkTree(_ document: DocumentPath, isPackage: Bool) throws -> TreeEntry? {
        let path = document.value
        switch workTree.kind(path) {
        case .missing:
            return nil
        case .symlink:
            throw ConcordError.invalidPath(path, reason: "it is a symbolic link in the work tree; links are never followed")
        case .behindLink:
            throw ConcordError.invalidPath(path, reason: "a folder on its path is a symbolic link in the work tree; links are never followed")
        case .other:
            throw ConcordError.invalidPath(path, reason: "it is not a regular file")
        case .directory:
            guard isPackage else {
                throw ConcordError.invalidPath(path, reason: "it is a folder; save the files in it, or make folders like it packages (package patterns in .concord/packages)")
            }
            return TreeEntry(name: document.name, id: try writePackageTree(path), mode: TreeEntry.treeMode)
        case .file:
            if isPackage { throw ConcordError.invalidPackage(path, reason: "it is a file, but its name matches a package pattern") }
            let id = try writeBlob(fromWorkFile: path)
            let mode = workTree.isExecutable(path) ? TreeEntry.executableMode : TreeEntry.fileMode
            return TreeEntry(name: document.name, id: id, mode: mode)
        }
    }

    /// Refuses a file larger than other devices accept from the cloud.
    func checkSize(_ size: Int, of path: String) throws {
        let limit = try ArrivalCheck.Limits.current(in: repository).objectSize
        if size > limit {
            throw ConcordError.io(
                path,
                reason:
                    "\(ArrivalCheck.format(size)) is over the limit of \(ArrivalCheck.format(limit)) for one file that devices accept (CONCORD_MAX_OBJECT_SIZE or concord.maxObjectSize raise it, on every device)"
            )
        }
    }

    /// Stores a work-tree file as a blob; a file larger than other devices accept
    /// (``ArrivalCheck/Limits``) is refused here, so that no device saves what the others refuse.
    private func writeBlob(fromWorkFile path: String) throws -> OID {
        try workTree.withOpenFile(path) { descriptor in
            var info = stat()
            if fstat(descriptor, &info) == 0 { try checkSize(Int(info.st_size), of: path) }
            return try ConcordError.wrap("cannot read \(path)") { try repository.writeBlob(fromDescriptor: descriptor, name: path) }
        }
    }

    private func writePackageTree(_ package: String) throws -> OID {
        let files = try workTree.packageFiles(package)
        var updates: [TreeUpdate] = []
        for file in files {
            let full = "\(package)/\(file)"
            let id = try writeBlob(fromWorkFile: full)
            updates.append(.upsert(path: file, id: id, mode: workTree.isExecutable(full) ? TreeEntry.executableMode : TreeEntry.fileMode))
        }
        return try ConcordError.wrap("cannot write the package tree") { try repository.updateTree(nil, updates) }
    }

    /// Writes a content into the work tree (a package: its files, removing files it does not hold).
    func writeWorkContent(_ document: DocumentPath, _ content: DocumentContent?, isPackage: Bool) throws {
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
                for existing in try workTree.packageFiles(document.value) where files[existing] == nil {
                    try workTree.remove("\(document.value)/\(existing)")
                }
            }
            for (file, data) in files.sorted(by: { $0.key < $1.key }) {
                try workTree.write("\(document.value)/\(file)", data: data)
            }
        }
    }

    /// The documents in `main`, optionally those matching a glob, with their states.
    func documents(matching pattern: String?) throws -> [DocumentInfo] {
        guard let headTree = try history.tree(of: history.head()) else { return [] }
        let patterns = try history.packagePatterns(in: headTree)
        let inConflict = Set(try history.conflictRecords(in: headTree).map(\.document))
        let busy = ContainerLock.isHeld(gitDirectory: repository.gitDirectory)
        let glob = pattern.map(GlobPattern.init)
        var result: [DocumentInfo] = []
        func visit(_ tree: OID, _ prefix: String) throws {
            let entries = try ConcordError.wrap("cannot read the tree") { try repository.entries(ofTree: tree) }
            for entry in entries {
                let path = prefix.isEmpty ? entry.name : "\(prefix)/\(entry.name)"
                if path == ".concord" { continue }
                let isPackage = entry.kind == .tree && patterns.contains { GlobPattern($0).matches(entry.name) }
                if entry.kind == .tree && !isPackage {
                    try visit(entry.id, path)
                    continue
                }
                if let glob, !glob.matches(path) { continue }
                let document = DocumentPath(unchecked: path)
                let state: DocumentState = inConflict.contains(document) ? .inConflict : (busy ? .editingDisabled : .normal)
                result.append(DocumentInfo(path: document, isPackage: isPackage, state: state, contentID: entry.id.hex))
            }
        }
        try visit(headTree, "")
        return result
    }
}
