internal import ConcordMerge
internal import FoundationEssentials
internal import Git
internal import GitFormat
internal import GitStore
internal import Logging

/// A container's history, read-only over its repository: commits and their stamps, every
/// document's versions, the current one, the conflict records, and the persistent
/// ``HistoryIndex`` with the ``HistoryCache`` that make them cheap. The NSFileVersion side of the
/// model. It needs neither the container lock nor the work tree (only bringing the index up to
/// date writes, and writers do that holding the lock).
final class History {
    let repository: Repository
    let logger: Logger
    let cache = HistoryCache()
    /// The persistent index, once opened (`.some(nil)`: there is none usable).
    var index: HistoryIndex??
    /// The package patterns of each `.concord/packages` read, by its blob id.
    var patternsByBlob: [OID: PackagePatterns] = [:]
    /// The patterns the cached current versions were found under (``historyPatterns()``).
    var cachedUnderPatterns: PackagePatterns?
    /// While the index is brought to `main`: `main`'s patterns, read once (``historyPatterns()``
    /// would read `main` at each call, once for each version the index adds).
    var extendingUnder: PackagePatterns?
    /// While an integration runs: the heads of both sides, whose renames a version of a
    /// document may come through (``formerVersionHeads()``).
    var integrating: [OID]?

    init(repository: Repository, logger: Logger) {
        self.repository = repository
        self.logger = logger
    }

    // MARK: Commits and trees

    func head() throws -> OID? {
        try ConcordError.wrap("cannot read main") { try repository.resolve(ContainerLayout.main) }
    }

    func tree(of commit: OID?) throws -> OID? {
        guard let commit else { return nil }
        return try known(commit).commit.tree
    }

    func entry(_ path: String, in tree: OID?) throws -> TreeEntry? {
        guard let tree else { return nil }
        return try ConcordError.wrap("cannot read tree \(tree.short)") { try repository.entry(at: path, in: tree) }
    }

    /// True when `document`'s entry is the same in both trees.
    func sameEntry(_ document: DocumentPath, _ first: OID?, _ second: OID?) throws -> Bool {
        try ConcordError.wrap("cannot read a tree") { try repository.sameEntry(at: document.value, in: first, second) }
    }

    func commit(_ id: OID) throws -> Commit { try known(id).commit }

    /// A commit and its trailers, read from the repository once per container.
    func known(_ id: OID) throws -> HistoryCache.Entry {
        try cache.entry(id) { id in
            try ConcordError.wrap("cannot read commit \(id.short)") { try repository.commit(id) }
        }
    }

    func stamp(_ id: OID) throws -> Stamp {
        let known = try known(id)
        return Stamp(known.commit, trailers: known.trailers)
    }

    // MARK: Packages

    /// The package patterns in `tree`'s `.concord/packages` (one glob a line, `#` comments).
    func packagePatterns(in tree: OID?) throws -> PackagePatterns {
        guard let entry = try entry(ContainerLayout.packages, in: tree) else { return .none }
        if let known = patternsByBlob[entry.id] { return known }
        let data = try ConcordError.wrap("cannot read \(ContainerLayout.packages)") { try repository.blob(entry.id) }
        let patterns = PackagePatterns(Self.parseLines(data))
        if patternsByBlob.count > 64 { patternsByBlob = [:] }
        patternsByBlob[entry.id] = patterns
        return patterns
    }

    static func parseLines(_ data: Data) -> [String] {
        String(decoding: data, as: UTF8.self).lines()
            .map { $0.trimmingCharacters(in: " ") }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }

    /// The document a tree path belongs to: the shallowest folder matching a package pattern,
    /// else the path itself. Nil for Concord's own files.
    func document(containing path: String, patterns: PackagePatterns) -> (document: DocumentPath, isPackage: Bool)? {
        if ContainerLayout.isConcords(path) { return nil }
        let components = path.slashSeparated()
        for index in components.indices {
            if patterns.matches(components[index]) {
                return (DocumentPath(unchecked: components[...index].joined(separator: "/")), true)
            }
        }
        return (DocumentPath(unchecked: path), false)
    }

    /// Checks that `document` names a document under the package patterns of `tree`, not a file
    /// inside a package or Concord's own records.
    /// - Returns: true when it is a package.
    /// - Throws: ``ConcordError/invalidPath(_:reason:)`` saying why it is not a document.
    func checkDocument(_ document: DocumentPath, in tree: OID?) throws -> Bool {
        guard let (owner, isPackage) = self.document(containing: document.value, patterns: try packagePatterns(in: tree)) else {
            throw ConcordError.invalidPath(document.value, reason: "'.concord' holds Concord's own records")
        }
        if owner != document {
            throw ConcordError.invalidPath(document.value, reason: "it is inside the package '\(owner)': save or resolve the package as one document")
        }
        return isPackage
    }

    // MARK: Reading

    /// The content a tree entry holds: a file's bytes, or a package's files.
    func content(of entry: TreeEntry?) throws -> DocumentContent? {
        guard let entry, !entry.isFolder else { return nil }
        if entry.isSymlink {
            throw ConcordError.invalidPath(entry.name, reason: "this version is a symbolic link; links are never written")
        }
        return try ConcordError.wrap("cannot read object \(entry.id.short)") {
            switch entry.kind {
            case .blob: return .file(try repository.blob(entry.id))
            case .tree:
                var files: [(path: String, data: Data)] = []
                try visitFiles(tree: entry.id, prefix: "") { path, file in
                    if file.isSymlink {
                        throw ConcordError.invalidPackage(entry.name, reason: "'\(path)' is a symbolic link in this version; links are never written")
                    }
                    files.append((path, try repository.blob(file.id)))
                }
                return try .package(named: entry.name, files: files)
            case .commit: return nil
            }
        }
    }

    /// The key-value entry a tree entry holds; nil when there is none or it is not one Concord wrote.
    func keyValueEntry(_ entry: TreeEntry?) throws -> KeyValueEntry? {
        guard let entry else { return nil }
        let data = try ConcordError.wrap("cannot read a key-value entry") { try repository.blob(entry.id) }
        return KeyValueEntry(data: data)
    }

    func size(of entry: TreeEntry?) throws -> Int {
        guard let entry, !entry.isFolder else { return 0 }
        return try ConcordError.wrap("cannot read object \(entry.id.short)") {
            switch entry.kind {
            case .blob: return try repository.blobSize(entry.id)
            case .tree:
                var total = 0
                try visitFiles(tree: entry.id, prefix: "") { _, file in total += try repository.blobSize(file.id) }
                return total
            case .commit: return 0
            }
        }
    }

    /// Calls `body` for every blob below `tree`, with its path.
    func visitFiles(tree: OID, prefix: String, _ body: (String, TreeEntry) throws -> Void) throws {
        for entry in try repository.entries(ofTree: tree) {
            let path = prefix.isEmpty ? entry.name : "\(prefix)/\(entry.name)"
            switch entry.kind {
            case .tree: try visitFiles(tree: entry.id, prefix: path, body)
            case .blob: try body(path, entry)
            case .commit: continue
            }
        }
    }

    // MARK: Latest wins

    /// True when `version` is an earlier version of the same line of edits as `current`: following
    /// `current`'s previous versions (a save's is the version it replaced; a resolution's, every
    /// version it resolved) reaches it. Such a version was replaced, not made concurrently, so it
    /// is no conflict version. Graph ancestry alone cannot tell: after an integration every later
    /// commit descends from both sides. `follows(later, earlier)` answers graph ancestry when
    /// the caller knows a shorter way; else the graph is walked.
    func isSuperseded(
        _ version: OID, byLineageOf current: OID, document: DocumentPath, follows: ((OID, OID) throws -> Bool)? = nil
    ) throws -> Bool {
        let follows = follows ?? descends
        var frontier = [current]
        var seen = Set<OID>()
        while let next = frontier.popLast() {
            if next == version { return true }
            guard seen.insert(next).inserted, try follows(next, version) else { continue }
            var previous = try previousVersions(of: next, document: document)
            // A version made under the name the document had before a rename replaced that name's.
            if previous.isEmpty, let name = try versionName(next, of: document), name != document {
                previous = try previousVersions(of: next, document: name)
            }
            frontier += previous
        }
        return false
    }

    /// True when `a` comes after `b` in the latest-wins order between concurrent versions (``LatestWins/Rank``).
    func isLater(_ a: OID, than b: OID) throws -> Bool {
        try rank(of: a) > rank(of: b)
    }

    /// A version's place in the latest-wins order.
    func rank(of version: OID) throws -> LatestWins.Rank {
        let stamp = try stamp(version)
        return LatestWins.Rank(clock: stamp.clock, deviceID: stamp.deviceID, id: version.hex)
    }
}
