internal import CGit2
public import Foundation
internal import Glibc
public import GitFormat

extension Repository {
    /// Writes `data` as a blob and returns its id (no filter is applied).
    /// - Throws: ``GitError`` when the object database cannot be written.
    public func writeBlob(_ data: Data) throws -> OID {
        var oid = git_oid()
        try bypassingPendingPack(forBlobOf: data.count) {
            try data.withUnsafeBytes { bytes in
                try check(
                    "git_blob_create_from_buffer",
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
                if remaining > 0 { CrashPoint.reach("blob:streaming") }
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
        try explainingMissing { try check("git_blob_lookup", git_blob_lookup(&blob, pointer, &raw)) }
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
}
