internal import ConcordMerge
internal import FoundationEssentials
internal import Git
internal import GitFormat

/// A name's states: a document is a file or a package, and the same name may hold a folder of
/// documents instead. For the history of the name, "a folder" is one state, whatever the folder
/// holds: the commit that turns a file into a folder (or makes a folder where nothing was) is a
/// version of that name, with no content (a deletion of the file, shown as a folder), and edits
/// of the documents inside are versions of those documents only. So when one device saves a
/// file `todo` and another a folder `todo/`, both sides have a version of `todo` to keep, and a
/// person can say which (or keep both).
extension History {
    /// The id a ``documentEntry(_:in:)`` gives a name that holds a folder of documents: no
    /// object has it (git's null id), so it is never read as a content.
    static let folderID = OID(bytes: [UInt8](repeating: 0, count: 20))!

    /// `document`'s entry in `tree` as a version of it sees it: its file, or its package's
    /// folder; a folder that is not a package is the entry ``folderID`` (one state, whatever
    /// it holds); nil when the name holds nothing.
    func documentEntry(_ document: DocumentPath, in tree: OID?) throws -> TreeEntry? {
        try documentEntry(converting: entry(document.value, in: tree), of: document.value, in: tree)
    }

    /// `document`'s entry in `tree` as ``documentEntry(_:in:)`` gives it, for the package
    /// patterns `patterns` instead of `tree`'s own.
    func documentEntry(_ document: DocumentPath, in tree: OID?, patterns: PackagePatterns) throws -> TreeEntry? {
        documentEntry(converting: try entry(document.value, in: tree), of: document.value, patterns: patterns)
    }

    /// The package patterns a document's history is read under: those of `main`'s tree, for
    /// every commit, as the history index applies them. A folder made a package then has the
    /// package's versions from its first file on, and no answer depends on whether this device
    /// has the index (a walk with each commit's own patterns saw one version, a folder).
    func historyPatterns() throws -> PackagePatterns {
        let patterns = try extendingUnder ?? packagePatterns(in: tree(of: head()))
        if patterns != cachedUnderPatterns {
            if cachedUnderPatterns != nil { cache.forgetCurrentVersions() }
            cachedUnderPatterns = patterns
        }
        return patterns
    }

    /// `raw`, the tree entry at `path` in `tree`, as ``documentEntry(_:in:)`` gives it.
    func documentEntry(converting raw: TreeEntry?, of path: String, in tree: OID?) throws -> TreeEntry? {
        guard let raw, raw.kind == .tree else { return raw }
        return documentEntry(converting: raw, of: path, patterns: try packagePatterns(in: tree))
    }

    /// `raw` as ``documentEntry(_:in:)`` gives it, for the package patterns `patterns`.
    func documentEntry(converting raw: TreeEntry?, of path: String, patterns: PackagePatterns) -> TreeEntry? {
        guard let raw, raw.kind == .tree, !Self.isPackage(path, patterns: patterns) else { return raw }
        return TreeEntry(name: raw.name, id: Self.folderID, mode: TreeEntry.treeMode)
    }

    /// True when `document` is in the same state in both trees under `patterns`: the same file
    /// or package, a folder in both (whatever each holds), or absent from both.
    func sameDocumentEntry(_ document: DocumentPath, _ first: OID?, _ second: OID?, patterns: PackagePatterns) throws -> Bool {
        if try sameEntry(document, first, second) { return true }
        return try documentEntry(document, in: first, patterns: patterns) == documentEntry(document, in: second, patterns: patterns)
    }

    /// True when the folder at `path` is a package for `patterns` (its name matches one).
    static func isPackage(_ path: String, patterns: PackagePatterns) -> Bool {
        patterns.matches(path.slashSeparated().last ?? path[...])
    }

    /// The shallowest folder on `document`'s path that `tree` holds as a file; nil when none.
    func fileAbove(_ document: DocumentPath, in tree: OID?) throws -> String? {
        let components = document.components
        for depth in components.indices.dropLast() {
            let path = components[...depth].joined(separator: "/")
            guard let entry = try entry(path, in: tree) else { return nil }
            if entry.kind != .tree { return path }
        }
        return nil
    }

    /// True when `tree` holds a folder of documents (not a package) at `path`.
    func holdsFolder(_ path: String, in tree: OID?) throws -> Bool {
        try documentEntry(converting: entry(path, in: tree), of: path, in: tree)?.isFolder == true
    }
}

extension TreeEntry {
    /// True for the entry ``History/documentEntry(_:in:)`` gives a folder of documents.
    var isFolder: Bool { id == History.folderID }
}
