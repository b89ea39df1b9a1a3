internal import FoundationEssentials
internal import Glibc
internal import Git
internal import GitFormat
internal import GitStore

/// What a save reads from the work tree: a document's file, or a package's folder, stored in the
/// repository as the tree entry the new version records.
extension WorkTree {
    /// The tree entry the work tree's copy of `document` would have, its objects written to
    /// `repository`; nil when the work tree does not hold it. A package leaves out the files
    /// `rules` ignore. `kind`: what the caller just found at the path (a scan of its folder),
    /// so that it is not looked up again.
    /// - Throws: ``ConcordError/invalidPath(_:reason:)`` for a symbolic link (or a path behind
    ///   one), a folder that is not a package, or anything but a regular file;
    ///   ``ConcordError/invalidPackage(_:reason:)`` for a file whose name matches a package pattern
    ///   or a package holding a link; ``ConcordError/io(_:reason:)`` for a file larger than other
    ///   devices accept (`limits`, read once by the caller for the whole operation).
    func entry(
        of document: DocumentPath, isPackage: Bool, storingIn repository: Repository, ignoring rules: IgnoreRules, limits: ArrivalCheck.Limits,
        kind known: Kind? = nil
    ) throws -> TreeEntry? {
        let path = document.value
        switch known ?? kind(path) {
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
            return TreeEntry(name: document.name, id: try storePackageTree(path, in: repository, ignoring: rules, limits: limits), mode: TreeEntry.treeMode)
        case .file:
            if isPackage { throw ConcordError.invalidPackage(path, reason: "it is a file, but its name matches a package pattern") }
            let blob = try storeBlob(path, in: repository, limits: limits)
            return TreeEntry(name: document.name, id: blob.id, mode: blob.mode)
        }
    }

    /// Stores a work-tree file as a blob; a file larger than other devices accept is refused
    /// here, so that no device saves what the others refuse.
    /// - Returns: the blob's id and the file's tree mode (executable or not), from the file opened.
    private func storeBlob(_ path: String, in repository: Repository, limits: ArrivalCheck.Limits) throws -> (id: OID, mode: UInt32) {
        try withOpenFile(path) { descriptor in
            var info = stat()
            guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
                throw ConcordError.invalidPath(path, reason: "it is not a regular file")
            }
            try limits.checkSize(Int(info.st_size), of: path)
            let id = try ConcordError.wrap("cannot read \(path)") { try repository.writeBlob(fromDescriptor: descriptor, name: path) }
            return (id, info.st_mode & S_IXUSR != 0 ? TreeEntry.executableMode : TreeEntry.fileMode)
        }
    }

    private func storePackageTree(_ package: String, in repository: Repository, ignoring rules: IgnoreRules, limits: ArrivalCheck.Limits) throws -> OID {
        var updates: [TreeUpdate] = []
        for file in try packageFiles(package, ignoring: rules) {
            let full = "\(package)/\(file)"
            let blob = try storeBlob(full, in: repository, limits: limits)
            updates.append(.upsert(path: file, id: blob.id, mode: blob.mode))
        }
        return try ConcordError.wrap("cannot write the package tree") { try repository.updateTree(nil, updates) }
    }
}
