internal import FoundationEssentials
internal import Glibc
public import GitFormat

extension ObjectStore {
    /// The entry at a slash-separated `path` inside the tree `tree`; nil when there is none.
    /// - Throws: ``StoreError`` when the tree cannot be read.
    package func entry(at path: String, in tree: OID) throws -> TreeEntry? {
        let components = path.slashSeparated()
        var current = tree
        for (index, component) in components.enumerated() {
            guard let entry = try child(component, of: current) else { return nil }
            if index == components.count - 1 { return entry }
            guard entry.kind == .tree else { return nil }
            current = entry.id
        }
        return nil
    }

    /// True when the entry at `path` is the same in both trees (the same id and mode, or absent
    /// from both; nil is the empty tree). Reads down only to the first folder both trees share,
    /// so comparing a commit with its parent costs little when the commit changed another folder.
    /// - Throws: ``StoreError`` when a tree cannot be read.
    package func sameEntry(at path: String, in first: OID?, _ second: OID?) throws -> Bool {
        let components = path.slashSeparated()
        var first = first, second = second
        for (index, component) in components.enumerated() {
            if first == second { return true }
            let a = try first.flatMap { try child(component, of: $0) }
            let b = try second.flatMap { try child(component, of: $0) }
            if index == components.count - 1 { return a == b }
            first = a?.kind == .tree ? a?.id : nil
            second = b?.kind == .tree ? b?.id : nil
        }
        return first == second
    }

    /// The entry `name` of the folder `tree`. Kept (``ChildMemo``): the same document is looked
    /// up in the same folders again and again, and reading a wide folder costs far more.
    package func child(_ name: Substring, of tree: OID) throws -> TreeEntry? {
        if let known = children[tree, name] { return known }
        let entry = try folderEntry(name, of: tree)
        children[tree, name] = .some(entry)
        return entry
    }

    /// The entry `name` of the folder `id`, read from its bytes (``treeBytes(_:)``: a version
    /// of a folder is one delta applied to a version read recently, where libgit2 rebuilt it
    /// from the whole version at the start of its chain and then parsed every entry). A name
    /// among the folder's first entries in git's order (`.concord` sorts before letters and
    /// digits) is found by reading from the start; any other makes an index of the folder's
    /// names, kept for the next lookups.
    private func folderEntry(_ name: Substring, of id: OID) throws -> TreeEntry? {
        if let found = indexedFolders.firstIndex(where: { $0.id == id }) {
            let kept = indexedFolders.remove(at: found)
            indexedFolders.insert(kept, at: 0)
            return try readingFormat { try kept.index.entry(named: name) }
        }
        let bytes = try treeBytes(id)
        return try readingFormat { () -> TreeEntry? in
            if let early = try RawTree.entry(named: name, amongTheFirst: 64, of: bytes) { return early }
            let index = try RawTree.Index(bytes)
            // The folders indexed last, within the bytes the recent folders may hold (each at
            // most half of it) and 32 folders: an integration looks names up in the base's, both
            // sides' and their parents' versions of a folder in turn, and with fewer kept, a wide
            // folder was indexed again at every lookup.
            if bytes.count <= recent.limit / 2 {
                indexedFolders.insert((id, index), at: 0)
                var kept = indexedFolders.reduce(0) { $0 + $1.index.bytes.count }
                while indexedFolders.count > 1, kept > recent.limit || indexedFolders.count > 32 {
                    kept -= indexedFolders.removeLast().index.bytes.count
                }
            }
            return try index.entry(named: name)
        }
    }

    /// The entries of the tree `tree`, in git's order.
    /// - Throws: ``StoreError`` when the tree cannot be read or is malformed.
    package func entries(ofTree tree: OID) throws -> [TreeEntry] {
        let bytes = try treeBytes(tree)
        return try readingFormat { try RawTree.entries(bytes) }
    }

    /// Writes a tree holding exactly `entries` (names must be single path components), in git's
    /// order.
    /// - Throws: ``StoreError`` for an invalid or repeated name or an unknown mode, or when the
    ///   tree cannot be written.
    package func writeTree(_ entries: [TreeEntry]) throws -> OID {
        for entry in entries {
            try Self.checkName(Substring(entry.name), of: entry.name)
            guard [TreeEntry.fileMode, TreeEntry.executableMode, TreeEntry.treeMode, 0o120000, 0o160000].contains(entry.mode) else {
                throw StoreError(.damaged, "invalid mode \(String(entry.mode, radix: 8)) for '\(entry.name)'")
            }
        }
        let bytes = try readingFormat { try RawTree.splice([], removing: [], inserting: entries) }
        try readingFormat { try RawTree.validate(bytes) }
        return try write(tree: bytes)
    }

    /// Writes a new tree: `base` (or the empty tree) with `updates` applied in the order of
    /// their paths (a later update of the same path wins), creating and pruning intermediate
    /// folders. Only the folders on the updated paths are rewritten, each by copying its
    /// unchanged entries as stored (``RawTree``): the cost follows the number of updates and the
    /// bytes of those folders, with nothing parsed, sorted or compared per entry of a wide folder.
    /// - Throws: ``StoreError`` when a path is invalid, an upsert names an object that is missing
    ///   or of another kind than its mode says, a path goes through a file, or an object cannot
    ///   be read or written.
    package func updateTree(_ base: OID?, _ updates: [TreeUpdate]) throws -> OID {
        if updates.isEmpty, let base { return base }
        // By path, component by component, so that each folder's changes are together, a
        // path's before those below it, and the same path's in the order given.
        let changes = updates.enumerated().map { (path: $0.element.path.slashSeparated(omittingEmpty: false)[...], update: $0.element, order: $0.offset) }
            .sorted { a, b in
                a.path.elementsEqual(b.path, by: Self.sameName)
                    ? a.order < b.order : a.path.lexicographicallyPrecedes(b.path) { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            }.map { (path: $0.path, update: $0.update) }
        return try splice(base, changes) ?? write(tree: [])
    }

    /// `folder` with `changes` (paths relative to it, in order) applied; nil when it ends empty.
    private func splice(_ folder: OID?, _ changes: [(path: ArraySlice<Substring>, update: TreeUpdate)]) throws -> OID? {
        var removing: [RawTree.Key] = [], inserting: [TreeEntry] = []
        var differences: [(key: RawTree.Key, old: TreeEntry?, new: TreeEntry?)] = []
        var start = changes.startIndex
        while start < changes.endIndex {
            let name = changes[start].path.first!
            var end = start + 1
            while end < changes.endIndex, Self.sameName(changes[end].path.first!, name) { end += 1 }
            try Self.checkName(name, of: changes[start].update.path)
            let existing = try folder.flatMap { try child(name, of: $0) }
            var entry = existing
            var below: [(path: ArraySlice<Substring>, update: TreeUpdate)] = []
            for change in changes[start..<end] {
                if change.path.count > 1 {
                    below.append((change.path.dropFirst(), change.update))
                    continue
                }
                // Direct changes sort before the paths below them, so none is pending here.
                switch change.update {
                case let .upsert(_, id, mode):
                    try checkObject(id, mode: mode, path: change.update.path)
                    entry = TreeEntry(name: String(name), id: id, mode: mode)
                case .remove:
                    entry = nil
                }
            }
            if !below.isEmpty {
                if let entry, entry.kind != .tree {
                    throw StoreError(.damaged, "cannot update \(below[0].update.path): \(name) is not a folder")
                }
                entry = try splice(entry?.id, below).map { TreeEntry(name: String(name), id: $0, mode: TreeEntry.treeMode) }
            }
            if entry != existing {
                let old = existing.map { (key: RawTree.Key(name: $0.name, isTree: $0.kind == .tree), entry: $0) }
                let new = entry.map { (key: RawTree.Key(name: $0.name, isTree: $0.kind == .tree), entry: $0) }
                if let old { removing.append(old.key) }
                if let new { inserting.append(new.entry) }
                // As forEachDifference pairs them: one pair when the name keeps its place in
                // git's order (a file stays a file, a folder a folder), else two.
                if let old, let new, old.key == new.key {
                    differences.append((old.key, old.entry, new.entry))
                } else {
                    if let old { differences.append((old.key, old.entry, nil)) }
                    if let new { differences.append((new.key, nil, new.entry)) }
                }
            }
            start = end
        }
        if removing.isEmpty, inserting.isEmpty { return folder }
        let base = try folder.map { try treeBytes($0) } ?? []
        let bytes = try readingFormat { try RawTree.splice(base, removing: removing, inserting: inserting) }
        guard !bytes.isEmpty else { return nil }
        let written = try write(tree: bytes)
        // What a checkout or a sync asks next is how this folder differs from its base.
        self.differences[folder, written] = differences.sorted { $0.key < $1.key }.map { ($0.old, $0.new) }
        return written
    }

    /// True when two names hold the same bytes. `==` on Swift strings compares by canonical
    /// equivalence, and would take `café` in NFC and in NFD, two entries of a tree, for one.
    package static func sameName(_ a: Substring, _ b: Substring) -> Bool {
        a.utf8.count == b.utf8.count && a.utf8.elementsEqual(b.utf8)
    }

    /// Feeds the bytes of `name` to `hasher`, so that a hash agrees with ``sameName(_:_:)``.
    package static func hashName(_ name: Substring, into hasher: inout Hasher) {
        // A substring of a native string is contiguous; any other one is hashed by its length alone.
        _ = name.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        hasher.combine(name.utf8.count)
    }

    /// Writes a folder's bytes as a tree object.
    private func write(tree bytes: [UInt8]) throws -> OID {
        let id = try write(.tree, bytes)
        // A wide folder just written is read again soon (the history's update looks `.concord`
        // up in the new root): keep its bytes rather than read them back from the pack.
        if bytes.count >= PackWriter.wideFolder { recent.keep(id, .tree, bytes) }
        return id
    }

    /// Refuses a name libgit2's tree builder refuses: empty, `.`, `..`, `.git` in any case, or
    /// holding a NUL.
    private static func checkName(_ name: Substring, of path: String) throws {
        guard !name.isEmpty, name != ".", name != "..", name.lowercased() != ".git", !name.utf8.contains(0) else {
            throw StoreError(.damaged, "invalid path '\(path)' for a tree entry")
        }
    }

    /// Refuses an upsert whose object is missing or not of the kind its mode names.
    private func checkObject(_ id: OID, mode: UInt32, path: String) throws {
        let wanted: ObjectType
        switch mode {
        case TreeEntry.treeMode: wanted = .tree
        case TreeEntry.fileMode, TreeEntry.executableMode, 0o120000: wanted = .blob
        case 0o160000: return
        default: throw StoreError(.damaged, "invalid mode \(String(mode, radix: 8)) for '\(path)'")
        }
        guard (try? header(of: id).type) == wanted else {
            throw StoreError(.notFound, "cannot put \(id.short) at '\(path)': no such \(wanted == .tree ? "folder" : "file") object")
        }
    }
}

/// One change to apply with ``ObjectStore/updateTree(_:_:)``.
public enum TreeUpdate: Sendable, Equatable {
    /// Put the blob or tree `id` at `path` with `mode`, replacing what is there.
    case upsert(path: String, id: OID, mode: UInt32)
    /// Remove whatever is at `path` (nothing happens if there is nothing).
    case remove(path: String)

    /// The path the update applies to.
    public var path: String {
        switch self {
        case let .upsert(path, _, _), let .remove(path): path
        }
    }
}

/// Entries of folders already looked up by name, emptied when it holds too many.
package struct ChildMemo {
    /// Nothing kept.
    package init() {}

    private struct Key: Hashable {
        var tree: OID
        var name: Substring

        // By bytes: two names that differ by Unicode normalization alone are two entries.
        static func == (a: Key, b: Key) -> Bool { a.tree == b.tree && ObjectStore.sameName(a.name, b.name) }

        func hash(into hasher: inout Hasher) {
            hasher.combine(tree)
            ObjectStore.hashName(name, into: &hasher)
        }
    }
    /// The most entries kept.
    package static let limit = 100_000
    private var kept: [Key: TreeEntry?] = [:]

    package subscript(tree: OID, name: Substring) -> TreeEntry?? {
        get { kept[Key(tree: tree, name: name)] }
        set {
            guard let newValue else { return }
            if kept.count >= Self.limit { kept = [:] }
            kept[Key(tree: tree, name: name)] = newValue
        }
    }
}
