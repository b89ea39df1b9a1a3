internal import CGit2
public import Foundation
internal import Glibc

extension Repository {
    // MARK: Blobs

    /// Writes `data` as a blob and returns its id (no filter is applied).
    /// - Throws: ``GitError`` when the object database cannot be written.
    public func writeBlob(_ data: Data) throws -> OID {
        var oid = git_oid()
        try bypassingPendingPack(forBlobOf: data.count) {
            try data.withUnsafeBytes { bytes in
                try check("git_blob_create_from_buffer",
                          git_blob_create_from_buffer(&oid, pointer, bytes.baseAddress, bytes.count))
            }
        }
        try notePendingBlob(OID(oid), bytes: data.count)
        return OID(oid)
    }

    /// Writes the open file `descriptor` (read from its current offset to its end) as a blob,
    /// streaming it as it is on disk: no filter, no attribute lookup. Callers open the file
    /// themselves, so that they decide how its path is reached (Concord never follows a link).
    /// `name` is only for messages.
    /// - Throws: ``GitError`` when the file cannot be read, changes size while being read, or
    ///   the object cannot be written.
    public func writeBlob(fromDescriptor descriptor: Int32, name: String) throws -> OID {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw GitError(message: "cannot read \(name): \(String(cString: strerror(errno)))", function: "fstat") }
        let size = Int(status.st_size)
        let id = try bypassingPendingPack(forBlobOf: size) {
            var database: OpaquePointer?
            try check("git_repository_odb", git_repository_odb(&database, pointer))
            defer { git_odb_free(database) }
            var stream: UnsafeMutablePointer<git_odb_stream>?
            try check("git_odb_open_wstream", git_odb_open_wstream(&stream, database, git_object_size_t(size), GIT_OBJECT_BLOB))
            defer { git_odb_stream_free(stream) }
            var buffer = [UInt8](repeating: 0, count: min(max(size, 1), 1 << 20))
            var remaining = size
            while remaining > 0 {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, min($0.count, remaining)) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else {
                    throw GitError(message: count < 0 ? "cannot read \(name): \(String(cString: strerror(errno)))" : "\(name) shrank while being read", function: "read")
                }
                try buffer.withUnsafeBytes { bytes in
                    try check("git_odb_stream_write", git_odb_stream_write(stream, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), count))
                }
                remaining -= count
            }
            var oid = git_oid()
            try check("git_odb_stream_finalize_write", git_odb_stream_finalize_write(&oid, stream))
            return OID(oid)
        }
        try notePendingBlob(id, bytes: size)
        return id
    }

    /// The id `data` would have as a blob, computed without writing anything.
    public static func blobID(of data: Data) throws -> OID {
        Libgit2.ensure()
        var oid = git_oid()
        try data.withUnsafeBytes { bytes in
            try check("git_odb_hash", git_odb_hash(&oid, bytes.baseAddress, bytes.count, GIT_OBJECT_BLOB))
        }
        return OID(oid)
    }

    /// The id the open file `descriptor` would have as a blob, computed without writing anything.
    /// - Throws: ``GitError`` when the file cannot be read.
    public static func blobID(ofDescriptor descriptor: Int32) throws -> OID {
        Libgit2.ensure()
        var oid = git_oid()
        // libgit2 hashes a file by path only; the descriptor's own entry in /proc names the
        // file that is open, whatever its path has become since.
        try check("git_odb_hashfile", git_odb_hashfile(&oid, "/proc/self/fd/\(descriptor)", GIT_OBJECT_BLOB))
        return OID(oid)
    }

    /// The content of a blob.
    /// - Throws: ``GitError`` when there is no such blob or it cannot be read.
    public func blob(_ id: OID) throws -> Data {
        try withBlob(id) { Data($0) }
    }

    /// The size in bytes of a blob, read from its header.
    public func blobSize(_ id: OID) throws -> Int {
        try ensureReadable(id, "git_odb_read_header")
        var odb: OpaquePointer?
        try check("git_repository_odb", git_repository_odb(&odb, pointer))
        defer { git_odb_free(odb) }
        var size = 0
        var type = GIT_OBJECT_ANY
        var raw = id.raw
        try check("git_odb_read_header", git_odb_read_header(&size, &type, odb, &raw))
        return size
    }

    /// Calls `body` with the bytes of a blob, without copying them.
    public func withBlob<T>(_ id: OID, _ body: (UnsafeRawBufferPointer) throws -> T) throws -> T {
        try ensureReadable(id, "git_blob_lookup")
        var raw = id.raw
        var blob: OpaquePointer?
        try check("git_blob_lookup", git_blob_lookup(&blob, pointer, &raw))
        defer { git_blob_free(blob) }
        let size = Int(git_blob_rawsize(blob))
        let bytes = UnsafeRawBufferPointer(start: git_blob_rawcontent(blob), count: size)
        return try body(bytes)
    }

    /// True when the object database holds an object with this id.
    public func contains(_ id: OID) -> Bool {
        var odb: OpaquePointer?
        guard git_repository_odb(&odb, pointer) == 0 else { return false }
        defer { git_odb_free(odb) }
        var raw = id.raw
        return git_odb_exists(odb, &raw) == 1
    }

    // MARK: Trees

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

    func child(_ name: Substring, of tree: OID) throws -> TreeEntry? {
        let treePointer = try lookupTree(tree)
        defer { git_tree_free(treePointer) }
        return git_tree_entry_byname(treePointer, String(name)).map(TreeEntry.init(copying:))
    }

    /// Looks a tree up after checking its object is readable; the caller frees it.
    func lookupTree(_ id: OID) throws -> OpaquePointer? {
        try ensureReadable(id, "git_tree_lookup")
        var raw = id.raw
        var tree: OpaquePointer?
        try check("git_tree_lookup", git_tree_lookup(&tree, pointer, &raw))
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
            try check("git_treebuilder_insert",
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
        try check("git_tree_create_updated",
                  git_tree_create_updated(&oid, pointer, baseTree, cUpdates.count, &cUpdates))
        notePendingObject(OID(oid))
        return OID(oid)
    }

    // MARK: Commits

    /// The commit with this id, copied out.
    /// - Throws: ``GitError`` when there is no such commit.
    public func commit(_ id: OID) throws -> Commit {
        let commit = try lookupCommit(id)
        defer { git_commit_free(commit) }
        let parentCount = git_commit_parentcount(commit)
        var parents: [OID] = []
        for index in 0..<parentCount {
            if let parent = git_commit_parent_id(commit, index) { parents.append(OID(parent.pointee)) }
        }
        let message = git_commit_message_raw(commit).map { String(cString: $0) } ?? ""
        return Commit(
            id: id,
            tree: OID(git_commit_tree_id(commit).pointee),
            parents: parents,
            message: message,
            author: Signature(copying: git_commit_author(commit)),
            committer: Signature(copying: git_commit_committer(commit))
        )
    }

    /// The id of a commit's root tree.
    public func treeID(ofCommit id: OID) throws -> OID {
        let commit = try lookupCommit(id)
        defer { git_commit_free(commit) }
        return OID(git_commit_tree_id(commit).pointee)
    }

    /// The ids of a commit's parents, first parent first.
    public func parents(ofCommit id: OID) throws -> [OID] {
        let commit = try lookupCommit(id)
        defer { git_commit_free(commit) }
        return (0..<git_commit_parentcount(commit)).compactMap { index in
            git_commit_parent_id(commit, index).map { OID($0.pointee) }
        }
    }

    /// Writes a commit. When `updateReference` is given, the reference is moved to the new
    /// commit only if it still points at the first parent (or does not exist and there is no
    /// parent): a compare-and-swap between concurrent writers.
    /// - Throws: ``GitError`` (``GitError/isNotFastForward`` when the reference moved).
    public func createCommit(
        tree: OID, parents: [OID], author: Signature, committer: Signature,
        message: String, updateReference: String? = nil
    ) throws -> OID {
        let treePointer = try lookupTree(tree)
        defer { git_tree_free(treePointer) }
        var parentPointers: [OpaquePointer?] = []
        defer { parentPointers.forEach { git_commit_free($0) } }
        for parent in parents {
            parentPointers.append(try lookupCommit(parent))
        }
        let authorPointer = try author.makeSignature()
        defer { git_signature_free(authorPointer) }
        let committerPointer = try committer.makeSignature()
        defer { git_signature_free(committerPointer) }
        var oid = git_oid()
        // Inside writingOnePack the commit is stored before the reference moves to it.
        let movedHere = pendingPack == nil ? updateReference : nil
        if let movedHere { CrashPoint.reach(crashPointName(movedHere, "before")) }
        try parentPointers.withUnsafeMutableBufferPointer { buffer in
            try check("git_commit_create", git_commit_create(
                &oid, pointer, movedHere, authorPointer, committerPointer, "UTF-8", message,
                treePointer, buffer.count, buffer.baseAddress))
        }
        if let movedHere { CrashPoint.reach(crashPointName(movedHere, "after")) }
        notePendingObject(OID(oid))
        if let updateReference, movedHere == nil {
            try setReference(updateReference, to: OID(oid), expected: parents.first, message: "commit: \(message.prefix { $0 != "\n" })")
        }
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
        try check("git_signature_new", git_signature_new(
            &signature, name, email, git_time_t(seconds), Int32(timeZoneOffsetMinutes)))
        return signature
    }
}
