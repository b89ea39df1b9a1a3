internal import CGit2
internal import Foundation
internal import Glibc
public import GitFormat
internal import GitStore

extension Repository {
    /// The entry at a slash-separated `path` inside the tree `tree`; nil when there is none.
    /// - Throws: ``GitError`` when the tree cannot be read.
    public func entry(at path: String, in tree: OID) throws -> TreeEntry? {
        let components = path.split(separator: "/", omittingEmptySubsequences: true)
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
    /// - Throws: ``GitError`` when a tree cannot be read.
    public func sameEntry(at path: String, in first: OID?, _ second: OID?) throws -> Bool {
        let components = path.split(separator: "/", omittingEmptySubsequences: true)
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
    func child(_ name: Substring, of tree: OID) throws -> TreeEntry? {
        if let known = children[tree, name] { return known }
        let entry: TreeEntry?
        if let found = try storedFolderEntry(name, of: tree) {
            entry = found
        } else {
            let treePointer = try lookupTree(tree)
            defer { git_tree_free(treePointer) }
            entry = git_tree_entry_byname(treePointer, String(name)).map(TreeEntry.init(copying:))
        }
        children[tree, name] = .some(entry)
        return entry
    }

    /// The entry `name` of the folder `id` read from its stored bytes, when it is in a pack
    /// Concord reads and libgit2 has not parsed it already; else nil (libgit2 reads it). Read
    /// so (``storedTree(_:depth:)``), a version of a folder is one delta applied to a version
    /// read recently, where libgit2 rebuilds it from the whole version at the start of its
    /// chain and then parses every entry: a sync of 100 saves in a nested container of 100,000
    /// took 141 ms instead of 153. A name among the folder's first entries in git's order
    /// (`.concord` sorts before letters and digits) is found by reading from the start; any
    /// other makes an index of the folder's names, kept for the next lookups.
    private func storedFolderEntry(_ name: Substring, of id: OID) throws -> TreeEntry?? {
        if let found = indexedFolders.firstIndex(where: { $0.id == id }) {
            let kept = indexedFolders.remove(at: found)
            indexedFolders.insert(kept, at: 0)
            return .some(try readingFormat { try kept.index.entry(named: name) })
        }
        guard !recentTrees.contains(id), let bytes = storedTree(id)?.bytes else { return nil }
        return try readingFormat {
            if let early = try RawTree.entry(named: name, amongTheFirst: 64, of: bytes) { return .some(early) }
            let index = try RawTree.Index(bytes)
            // Four folders kept, each at most half the bytes the recent folders may hold.
            if bytes.count <= recentTreeBytes.limit / 2 {
                indexedFolders.insert((id, index), at: 0)
                if indexedFolders.count > 4 { indexedFolders.removeLast() }
            }
            return .some(try index.entry(named: name))
        }
    }

    /// Looks a tree up after checking its object is readable; the caller frees it.
    func lookupTree(_ id: OID) throws -> OpaquePointer? {
        if let kept = recentTrees.tree(id) { return kept }
        try ensureReadable(id, "git_tree_lookup")
        var raw = id.raw
        var tree: OpaquePointer?
        try explainingMissing { try check("git_tree_lookup", git_tree_lookup(&tree, pointer, &raw)) }
        if let tree { recentTrees.keep(id, tree) }
        return tree
    }

    /// Looks a commit up after checking its object is readable; the caller frees it.
    func lookupCommit(_ id: OID) throws -> OpaquePointer? {
        try ensureReadable(id, "git_commit_lookup")
        var raw = id.raw
        var commit: OpaquePointer?
        try explainingMissing { try check("git_commit_lookup", git_commit_lookup(&commit, pointer, &raw)) }
        return commit
    }

    /// The entries of the tree `tree`, in git's order.
    /// - Throws: ``GitError`` when the tree cannot be read.
    public func entries(ofTree tree: OID) throws -> [TreeEntry] {
        let treePointer = try lookupTree(tree)
        defer { git_tree_free(treePointer) }
        let count = git_tree_entrycount(treePointer)
        var result: [TreeEntry] = []
        result.reserveCapacity(count)
        for index in 0..<count {
            guard let entry = git_tree_entry_byindex(treePointer, index) else { continue }
            result.append(TreeEntry(copying: entry))
        }
        return result
    }

    /// Writes a tree holding exactly `entries` (names must be single path components).
    /// - Throws: ``GitError`` for an invalid name or mode, or when the tree cannot be written.
    public func writeTree(_ entries: [TreeEntry]) throws -> OID {
        var builder: OpaquePointer?
        try check("git_treebuilder_new", git_treebuilder_new(&builder, pointer, nil))
        defer { git_treebuilder_free(builder) }
        for entry in entries {
            var raw = entry.id.raw
            try check(
                "git_treebuilder_insert",
                git_treebuilder_insert(nil, builder, entry.name, &raw, git_filemode_t(entry.mode)))
        }
        var oid = git_oid()
        try check("git_treebuilder_write", git_treebuilder_write(&oid, builder))
        notePendingObject(OID(oid))
        return OID(oid)
    }

    /// Writes a new tree: `base` (or the empty tree) with `updates` applied in the order of
    /// their paths (a later update of the same path wins), creating and pruning intermediate
    /// folders. Only the folders on the updated paths are rewritten, each by copying its
    /// unchanged entries as stored (``RawTree``): the cost follows the number of updates and the
    /// bytes of those folders, with nothing parsed, sorted or compared per entry of a wide folder.
    /// - Throws: ``GitError`` when a path is invalid, an upsert names an object that is missing
    ///   or of another kind than its mode says, a path goes through a file, or an object cannot
    ///   be read or written.
    public func updateTree(_ base: OID?, _ updates: [TreeUpdate]) throws -> OID {
        if updates.isEmpty, let base { return base }
        // By path, component by component, so that each folder's changes are together, a
        // path's before those below it, and the same path's in the order given.
        let changes = updates.enumerated().map { (path: $0.element.path.split(separator: "/", omittingEmptySubsequences: false)[...], update: $0.element, order: $0.offset) }
            .sorted { a, b in
                a.path.elementsEqual(b.path, by: Self.sameName)
                    ? a.order < b.order : a.path.lexicographicallyPrecedes(b.path) { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            }.map { (path: $0.path, update: $0.update) }
        let root = try splice(base, changes) ?? write(tree: [])
        notePendingObject(root)
        return root
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
                    throw GitError(message: "cannot update \(below[0].update.path): \(name) is not a folder", function: "updateTree")
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
        var database: OpaquePointer?
        try check("git_repository_odb", git_repository_odb(&database, pointer))
        defer { git_odb_free(database) }
        let base = try folder.map { try readObject($0, from: database).bytes } ?? []
        let bytes = try readingFormat { try RawTree.splice(base, removing: removing, inserting: inserting) }
        guard !bytes.isEmpty else { return nil }
        let written = try write(tree: bytes)
        // What a checkout or a sync asks next is how this folder differs from its base.
        self.differences[folder, written] = differences.sorted { $0.key < $1.key }.map { ($0.old, $0.new) }
        return written
    }

    /// True when two names hold the same bytes. `==` on Swift strings compares by canonical
    /// equivalence, and would take `café` in NFC and in NFD, two entries of a tree, for one.
    static func sameName(_ a: Substring, _ b: Substring) -> Bool {
        a.utf8.count == b.utf8.count && a.utf8.elementsEqual(b.utf8)
    }

    /// Feeds the bytes of `name` to `hasher`, so that a hash agrees with ``sameName(_:_:)``.
    static func hashName(_ name: Substring, into hasher: inout Hasher) {
        // A substring of a native string is contiguous; any other one is hashed by its length alone.
        _ = name.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        hasher.combine(name.utf8.count)
    }

    /// Writes a folder's bytes as a tree object.
    private func write(tree bytes: [UInt8]) throws -> OID {
        var database: OpaquePointer?
        try check("git_repository_odb", git_repository_odb(&database, pointer))
        defer { git_odb_free(database) }
        var oid = git_oid()
        try check("git_odb_write", bytes.withUnsafeBytes { git_odb_write(&oid, database, $0.baseAddress, $0.count, GIT_OBJECT_TREE) })
        // A wide folder just written is read again soon (the history's update looks `.concord`
        // up in the new root): keep its bytes rather than read them back from the pack.
        if bytes.count >= PackWriter.wideFolder { recentTreeBytes.keep(OID(oid), bytes) }
        return OID(oid)
    }

    /// Refuses a name libgit2's tree builder refuses: empty, `.`, `..`, `.git` in any case, or
    /// holding a NUL.
    private static func checkName(_ name: Substring, of path: String) throws {
        guard !name.isEmpty, name != ".", name != "..", name.lowercased() != ".git", !name.utf8.contains(0) else {
            throw GitError(message: "invalid path '\(path)' for a tree entry", function: "updateTree")
        }
    }

    /// Refuses an upsert whose object is missing or not of the kind its mode names.
    private func checkObject(_ id: OID, mode: UInt32, path: String) throws {
        let wanted: git_object_t
        switch mode {
        case TreeEntry.treeMode: wanted = GIT_OBJECT_TREE
        case TreeEntry.fileMode, TreeEntry.executableMode, 0o120000: wanted = GIT_OBJECT_BLOB
        case 0o160000: return
        default: throw GitError(message: "invalid mode \(String(mode, radix: 8)) for '\(path)'", function: "updateTree")
        }
        var database: OpaquePointer?
        try check("git_repository_odb", git_repository_odb(&database, pointer))
        defer { git_odb_free(database) }
        var raw = id.raw
        var size = 0
        var type = GIT_OBJECT_ANY
        guard git_odb_read_header(&size, &type, database, &raw) == 0, type == wanted else {
            throw GitError(message: "cannot put \(id.short) at '\(path)': no such \(wanted == GIT_OBJECT_TREE ? "folder" : "file") object", function: "updateTree")
        }
    }
}

/// One change to apply with ``Repository/updateTree(_:_:)``.
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

extension TreeEntry {
    init(copying entry: OpaquePointer) {
        self.init(
            name: String(cString: git_tree_entry_name(entry)),
            id: OID(git_tree_entry_id(entry).pointee),
            mode: UInt32(git_tree_entry_filemode_raw(entry).rawValue)
        )
    }
}

extension Signature {
    init(copying signature: UnsafePointer<git_signature>) {
        let value = signature.pointee
        self.init(
            name: String(cString: value.name),
            email: String(cString: value.email),
            // A commit's time is data from anywhere: held to the years 1 to 9999, as git prints them.
            time: Date(timeIntervalSince1970: TimeInterval(min(max(value.when.time, -62_135_596_800), 253_402_300_799))),
            timeZoneOffsetMinutes: Int(value.when.offset)
        )
    }

    func makeSignature() throws -> UnsafeMutablePointer<git_signature>? {
        let seconds = time.timeIntervalSince1970.rounded(.down)
        // git stores times as 64-bit seconds; a date past the year 9999 is a broken clock.
        guard seconds.magnitude < 253_402_300_800, (-1440...1440).contains(timeZoneOffsetMinutes) else {
            throw GitError(message: "the date \(time) cannot be written in a commit: is this machine's clock right?", function: "git_signature_new")
        }
        var signature: UnsafeMutablePointer<git_signature>?
        try check(
            "git_signature_new",
            git_signature_new(
                &signature, name, email, git_time_t(seconds), Int32(timeZoneOffsetMinutes)))
        return signature
    }
}

/// Entries of folders already looked up by name, emptied when it holds too many.
struct ChildMemo {
    private struct Key: Hashable {
        var tree: OID
        var name: Substring

        // By bytes: two names that differ by Unicode normalization alone are two entries.
        static func == (a: Key, b: Key) -> Bool { a.tree == b.tree && Repository.sameName(a.name, b.name) }

        func hash(into hasher: inout Hasher) {
            hasher.combine(tree)
            Repository.hashName(name, into: &hasher)
        }
    }
    /// The most entries kept.
    static let limit = 100_000
    private var kept: [Key: TreeEntry?] = [:]

    subscript(tree: OID, name: Substring) -> TreeEntry?? {
        get { kept[Key(tree: tree, name: name)] }
        set {
            guard let newValue else { return }
            if kept.count >= Self.limit { kept = [:] }
            kept[Key(tree: tree, name: name)] = newValue
        }
    }
}
