internal import CGit2
internal import Foundation
internal import Glibc

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
        let treePointer = try lookupTree(tree)
        defer { git_tree_free(treePointer) }
        let entry = git_tree_entry_byname(treePointer, String(name)).map(TreeEntry.init(copying:))
        children[tree, name] = .some(entry)
        return entry
    }

    /// Looks a tree up after checking its object is readable; the caller frees it.
    func lookupTree(_ id: OID) throws -> OpaquePointer? {
        if let kept = recentTrees.tree(id) { return kept }
        try ensureReadable(id, "git_tree_lookup")
        var raw = id.raw
        var tree: OpaquePointer?
        try check("git_tree_lookup", git_tree_lookup(&tree, pointer, &raw))
        if let tree { recentTrees.keep(id, tree) }
        return tree
    }

    /// Looks a commit up after checking its object is readable; the caller frees it.
    func lookupCommit(_ id: OID) throws -> OpaquePointer? {
        try ensureReadable(id, "git_commit_lookup")
        var raw = id.raw
        var commit: OpaquePointer?
        try check("git_commit_lookup", git_commit_lookup(&commit, pointer, &raw))
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

    /// Writes a new tree: `base` (or the empty tree) with `updates` applied, creating and
    /// pruning intermediate folders. Cost follows the number of updates, not the tree's size.
    /// - Throws: ``GitError`` when a path is invalid or an object cannot be read or written.
    public func updateTree(_ base: OID?, _ updates: [TreeUpdate]) throws -> OID {
        let baseID = try base ?? writeTree([])
        if updates.isEmpty { return baseID }
        let baseTree = try lookupTree(baseID)
        defer { git_tree_free(baseTree) }
        // Keep every path's C string alive for the whole call.
        let paths = updates.map { strdup($0.path) }
        defer { paths.forEach { free($0) } }
        var cUpdates: [git_tree_update] = updates.enumerated().map { index, update in
            var item = git_tree_update()
            item.path = UnsafePointer(paths[index])
            switch update {
            case let .upsert(_, id, mode):
                item.action = GIT_TREE_UPDATE_UPSERT
                item.id = id.raw
                item.filemode = git_filemode_t(mode)
            case .remove:
                item.action = GIT_TREE_UPDATE_REMOVE
            }
            return item
        }
        var oid = git_oid()
        try check(
            "git_tree_create_updated",
            git_tree_create_updated(&oid, pointer, baseTree, cUpdates.count, &cUpdates))
        notePendingObject(OID(oid))
        return OID(oid)
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
