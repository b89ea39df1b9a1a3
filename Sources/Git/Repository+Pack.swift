internal import CGit2
internal import Foundation
internal import Glibc
internal import GitFormat
internal import GitStore

/// The object database of a ``Repository/writingOnePack(_:)`` call: the repository's own
/// database for reading, and a database in memory that takes every write.
final class PendingPack {
    /// The repository's own object database, restored at the end.
    let original: OpaquePointer
    /// The on-disk backends plus the memory backend; the repository uses it meanwhile.
    let database: OpaquePointer
    /// The memory backend, owned by `database`.
    let memory: UnsafeMutablePointer<git_odb_backend>
    /// Blobs larger than this go to disk directly.
    let streamingAbove: Int
    /// The pack is stored when the blobs held reach this many bytes.
    let flushingAt: Int
    /// Bytes of blob content held in memory.
    var bytes = 0
    /// What the wrapper wrote (blobs, root trees, commits): the pack holds these and whatever
    /// they name that is not on disk yet.
    var written: [OID] = []

    init(repository: OpaquePointer, objects: String, streamingAbove: Int, flushingAt: Int) throws {
        var original: OpaquePointer?
        try check("git_repository_odb", git_repository_odb(&original, repository))
        var database: OpaquePointer?
        var memory: UnsafeMutablePointer<git_odb_backend>?
        var function = "git_odb_open"
        var status = git_odb_open(&database, objects)
        if status >= 0 {
            function = "git_mempack_new"
            status = git_mempack_new(&memory)
        }
        if status >= 0 {
            function = "git_odb_add_backend"
            status = git_odb_add_backend(database, memory, 1000)
            if status < 0 { memory?.pointee.free(memory) }
        }
        guard status >= 0, let original, let database, let memory else {
            git_odb_free(database)
            git_odb_free(original)
            try check(function, status)
            throw GitError(message: "no object database", function: function)
        }
        self.original = original
        self.database = database
        self.memory = memory
        self.streamingAbove = streamingAbove
        self.flushingAt = flushingAt
    }

    deinit {
        git_odb_free(database)
        git_odb_free(original)
    }
}

extension Repository {
    /// Runs `body` with every object it writes kept in memory, then stored as one pack: one
    /// file synced once instead of one synced file per object. References must not name the
    /// new objects before they are stored, so moving one inside `body` stores the pack first.
    /// A blob larger than `streamingAbove` bytes goes to disk directly, and the pack is stored
    /// whenever the blobs held reach `flushingAt` bytes, so memory stays bounded.
    /// If `body` throws, the objects it wrote are dropped (no reference names them).
    /// - Throws: ``GitError`` when the pack cannot be stored, or what `body` throws.
    public func writingOnePack<T>(streamingAbove: Int = 8 << 20, flushingAt: Int = 64 << 20, _ body: () throws -> T) throws -> T {
        if pendingPack != nil { return try body() }
        let pack = try PendingPack(
            repository: pointer, objects: gitDirectory + "objects",
            streamingAbove: streamingAbove, flushingAt: flushingAt)
        try check("git_repository_set_odb", git_repository_set_odb(pointer, pack.database))
        pendingPack = pack
        defer {
            pendingPack = nil
            git_repository_set_odb(pointer, pack.original)
        }
        let result = try body()
        try storePendingPack()
        return result
    }

    /// True inside ``writingOnePack(streamingAbove:flushingAt:_:)``.
    public var isWritingOnePack: Bool { pendingPack != nil }

    /// Stores the objects written so far as one pack (nothing outside ``writingOnePack(_:)``).
    /// The memory backend cannot list what it holds, so the pack is made from what the wrapper
    /// wrote (every blob, each tree update's root, each commit), following commits and trees
    /// into the folders not already on disk: its cost follows what was written, not the size
    /// of the trees. Concord writes the pack and its index (``PackWriter``): these objects were
    /// made here, so nothing searches for deltas or hashes them again.
    func storePendingPack() throws {
        guard let pack = pendingPack, !pack.written.isEmpty else { return }
        var objects: [OID] = []
        var seen = Set<OID>()
        for id in pack.written { try collectIfNew(id, into: &objects, pack: pack, seen: &seen) }
        if !objects.isEmpty {
            var writer = PackWriter(thin: false)
            for id in objects { try writer.add(id, previous: nil) { try self.readObject($0, from: pack.database) } }
            let bytes = try writer.finish()
            _ = try storeOwnPack(bytes, index: writer.index(of: bytes))
            CrashPoint.reach("pack:stored")
            try check("git_odb_refresh", git_odb_refresh(pack.original))
        }
        try check("git_mempack_reset", git_mempack_reset(pack.memory))
        pack.written = []
        pack.bytes = 0
    }

    /// Adds `id` to `objects` unless it is on disk already, then what it names that is not.
    private func collectIfNew(_ id: OID, into objects: inout [OID], pack: PendingPack, seen: inout Set<OID>) throws {
        guard seen.insert(id).inserted else { return }
        var raw = id.raw
        if git_odb_exists_ext(pack.original, &raw, UInt32(GIT_ODB_LOOKUP_NO_REFRESH.rawValue)) == 1 { return }
        var size = 0
        var type = GIT_OBJECT_ANY
        try check("git_odb_read_header", git_odb_read_header(&size, &type, pack.database, &raw))
        objects.append(id)
        switch type {
        case GIT_OBJECT_TREE:
            // Blobs this batch wrote are in `written`; any other blob a tree names is on disk.
            let bytes = try readObject(id, from: pack.database).bytes
            for folder in try readingFormat({ try RawTree.folders(in: bytes) }) {
                try collectIfNew(folder, into: &objects, pack: pack, seen: &seen)
            }
        case GIT_OBJECT_COMMIT:
            try collectIfNew(treeID(ofCommit: id), into: &objects, pack: pack, seen: &seen)
            for parent in try parents(ofCommit: id) { try collectIfNew(parent, into: &objects, pack: pack, seen: &seen) }
        default:
            break
        }
    }

    /// Notes an object the wrapper wrote, for ``storePendingPack()``.
    func notePendingObject(_ id: OID) {
        pendingPack?.written.append(id)
    }

    /// Counts blob bytes written into the pending pack, storing it when it grows past the limit.
    func notePendingBlob(_ id: OID, bytes: Int) throws {
        guard let pack = pendingPack, bytes <= pack.streamingAbove else { return }
        pack.written.append(id)
        pack.bytes += bytes
        if pack.bytes >= pack.flushingAt { try storePendingPack() }
    }

    /// Runs `body` against the repository's own object database when a blob of `bytes` is too
    /// large to hold in memory (libgit2 then streams it to disk).
    func bypassingPendingPack<T>(forBlobOf bytes: Int, _ body: () throws -> T) throws -> T {
        guard let pack = pendingPack, bytes > pack.streamingAbove else { return try body() }
        try check("git_repository_set_odb", git_repository_set_odb(pointer, pack.original))
        defer { git_repository_set_odb(pointer, pack.database) }
        return try body()
    }
}

extension Repository {
    /// Stores a complete pack that Concord wrote (every delta's base inside it) with the index
    /// it wrote for it (``PackWriter/index(of:)``): each file written under a temporary name,
    /// synced and renamed into place, the pack before its index, then the folder synced. Nothing
    /// is unpacked or hashed again, so this is for objects this device wrote or already holds,
    /// or has just hashed (``copyObjects(to:from:hiding:trusted:)`` from a cloud); what a cloud
    /// sends over the network goes through libgit2's indexer, which checks every object.
    /// - Returns: the pack's file name, `pack-<hash>.pack`.
    /// - Throws: ``GitError`` when a file cannot be written.
    func storeOwnPack(_ pack: [UInt8], index: [UInt8]) throws -> String {
        let folder = gitDirectory + "objects/pack"
        let stem = "\(folder)/pack-\(OID(bytes: pack.suffix(20))!.hex)"
        if access(stem + ".idx", F_OK) == 0 { return String(stem.dropFirst(folder.count + 1)) + ".pack" }
        try Self.writeDurably(pack, to: stem + ".pack")
        try Self.writeDurably(index, to: stem + ".idx")
        if GitLibrary.durable {
            let descriptor = Glibc.open(folder, O_RDONLY | O_CLOEXEC)
            if descriptor >= 0 {
                fsync(descriptor)
                close(descriptor)
            }
        }
        var database: OpaquePointer?
        try check("git_repository_odb", git_repository_odb(&database, pointer))
        defer { git_odb_free(database) }
        try check("git_odb_refresh", git_odb_refresh(database))
        return String(stem.dropFirst(folder.count + 1)) + ".pack"
    }

    /// Writes `bytes` to a new file beside `path`, syncs it and renames it to `path`.
    private static func writeDurably(_ bytes: [UInt8], to path: String) throws {
        let temporary = path + ".tmp-\(getpid())"
        let descriptor = Glibc.open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o444)
        guard descriptor >= 0 else { throw GitError(message: "cannot write \(temporary): \(String(cString: strerror(errno)))", function: "open") }
        var written = 0
        let failure: Int32? = bytes.withUnsafeBytes { buffer in
            while written < buffer.count {
                let count = write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return errno }
                written += count
            }
            return GitLibrary.durable && fsync(descriptor) != 0 ? errno : nil
        }
        close(descriptor)
        if let failure {
            unlink(temporary)
            throw GitError(message: "cannot write \(temporary): \(String(cString: strerror(failure)))", function: "write")
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw GitError(message: "cannot write \(path): \(reason)", function: "rename")
        }
    }
}
