internal import CGit2
public import FoundationEssentials
internal import Glibc
public import GitFormat
internal import GitStore

extension Repository {
    /// Writes `data` as a blob and returns its id (no filter is applied).
    /// - Throws: ``GitError`` when the object cannot be written.
    public func writeBlob(_ data: Data) throws -> OID {
        try readingStore { try store.write(.blob, [UInt8](data)) }
    }

    /// Writes the open file `descriptor` (read from its current offset to its end) as a blob,
    /// streaming it as it is on disk: no filter, no attribute lookup
    /// (``ObjectStore/writeBlob(from:name:)``). Callers open the file themselves, so that they
    /// decide how its path is reached (Concord never follows a link). `name` is only for messages.
    /// - Throws: ``GitError`` when the file cannot be read, changes size while being read, or
    ///   the object cannot be written.
    public func writeBlob(fromDescriptor descriptor: Int32, name: String) throws -> OID {
        try readingStore { try store.writeBlob(from: descriptor, name: name) }
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

    /// The size in bytes of a blob, read from its header (a delta's, when it is stored as one:
    /// its chain is not rebuilt).
    public func blobSize(_ id: OID) throws -> Int {
        try readingStore { try store.size(of: id) }
    }

    /// Calls `body` with the bytes of a blob, without copying them again.
    public func withBlob<T>(_ id: OID, _ body: (UnsafeRawBufferPointer) throws -> T) throws -> T {
        let object = try readingStore { try store.read(id) }
        guard object.type == .blob else {
            throw GitError(
                code: .notFound, errorClass: .object,
                message: "object \(id.hex) is not a file (a blob)", function: "withBlob")
        }
        return try object.bytes.withUnsafeBytes(body)
    }

    /// True when the object database holds an object with this id.
    public func contains(_ id: OID) -> Bool { store.contains(id) }
}
