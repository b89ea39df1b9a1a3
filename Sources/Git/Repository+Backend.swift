internal import CGit2
internal import FoundationEssentials
internal import GitFormat
internal import GitStore

extension Repository {
    /// Gives libgit2 an object database whose one backend is this repository's ``store``: every
    /// object libgit2 reads (a commit, a folder, in a walk or a merge) or writes (a commit, a
    /// folder from a tree builder) goes through Concord's store, and libgit2 never opens an
    /// object file itself. A pack received from the network is indexed by libgit2's indexer
    /// (its checks, its completion of a thin pack) into the store's pack folder.
    /// - Throws: ``GitError`` when the database cannot be made.
    func installStoreBackend() throws {
        var database: OpaquePointer?
        try check("git_odb_new", git_odb_new(&database))
        defer { git_odb_free(database) }
        let payload = Unmanaged.passRetained(store)
        guard let backend = concord_odb_backend_new(payload.toOpaque(), store.path + "pack") else {
            payload.release()
            throw GitError(message: "no memory for an object database", function: "concord_odb_backend_new")
        }
        backend.pointee.parent.read = storeRead
        backend.pointee.parent.read_header = storeReadHeader
        backend.pointee.parent.exists = storeExists
        backend.pointee.parent.write = storeWrite
        backend.pointee.parent.refresh = storeRefresh
        backend.pointee.parent.free = storeFree
        let added = git_odb_add_backend(database, &backend.pointee.parent, 1)
        if added < 0 {
            payload.release()
            concord_odb_backend_free(&backend.pointee.parent)
            try check("git_odb_add_backend", added)
        }
        try check("git_repository_set_odb", git_repository_set_odb(pointer, database))
    }
}

// libgit2 calls these with the backend installStoreBackend made, whose payload is the store.

private func store(of backend: UnsafeMutablePointer<git_odb_backend>?) -> ObjectStore? {
    guard let backend, let payload = concord_odb_backend_payload(backend) else { return nil }
    return Unmanaged<ObjectStore>.fromOpaque(payload).takeUnretainedValue()
}

/// Hands a failure to libgit2: its message as libgit2's error, a missing object as `GIT_ENOTFOUND`.
private func report(_ error: any Error) -> Int32 {
    let gitError = (error as? StoreError).map(GitError.init) ?? error as? GitError ?? GitError(message: "\(error)", function: "object store")
    git_error_set_str(gitError.errorClass == .none ? GitError.Class.odb.rawValue : gitError.errorClass.rawValue, gitError.message)
    return gitError.isNotFound ? GIT_ENOTFOUND.rawValue : GIT_ERROR.rawValue
}

private let storeRead:
    @convention(c) (
        UnsafeMutablePointer<UnsafeMutableRawPointer?>?, UnsafeMutablePointer<Int>?, UnsafeMutablePointer<git_object_t>?,
        UnsafeMutablePointer<git_odb_backend>?, UnsafePointer<git_oid>?
    ) -> Int32 = { data, length, type, backend, id in
        guard let data, let length, let type, let id, let store = store(of: backend) else { return GIT_ERROR.rawValue }
        do {
            let object = try store.read(OID(id.pointee))
            guard let buffer = git_odb_backend_data_alloc(backend, max(object.bytes.count, 1)) else {
                return report(GitError(message: "no memory for object \(OID(id.pointee).hex)", function: "git_odb_backend_data_alloc"))
            }
            object.bytes.withUnsafeBytes { bytes in
                if let base = bytes.baseAddress { buffer.copyMemory(from: base, byteCount: bytes.count) }
            }
            data.pointee = buffer
            length.pointee = object.bytes.count
            type.pointee = git_object_t(object.type)
            return 0
        } catch {
            return report(error)
        }
    }

private let storeReadHeader:
    @convention(c) (
        UnsafeMutablePointer<Int>?, UnsafeMutablePointer<git_object_t>?, UnsafeMutablePointer<git_odb_backend>?, UnsafePointer<git_oid>?
    ) -> Int32 = { length, type, backend, id in
        guard let length, let type, let id, let store = store(of: backend) else { return GIT_ERROR.rawValue }
        do {
            let header = try store.header(of: OID(id.pointee))
            length.pointee = header.size
            type.pointee = git_object_t(header.type)
            return 0
        } catch {
            return report(error)
        }
    }

private let storeExists: @convention(c) (UnsafeMutablePointer<git_odb_backend>?, UnsafePointer<git_oid>?) -> Int32 = { backend, id in
    guard let id, let store = store(of: backend) else { return 0 }
    return store.contains(OID(id.pointee)) ? 1 : 0
}

private let storeWrite: @convention(c) (UnsafeMutablePointer<git_odb_backend>?, UnsafePointer<git_oid>?, UnsafeRawPointer?, Int, git_object_t) -> Int32 = {
    backend, id, data, length, type in
    guard let id, let store = store(of: backend), let objectType = ObjectType(type) else { return GIT_ERROR.rawValue }
    do {
        let bytes = data.map { [UInt8](UnsafeRawBufferPointer(start: $0, count: length)) } ?? []
        let written = try store.write(objectType, bytes)
        guard written == OID(id.pointee) else {
            return report(GitError(message: "libgit2 named object \(OID(id.pointee).hex) what hashes to \(written.hex)", function: "object store"))
        }
        return 0
    } catch {
        return report(error)
    }
}

private let storeRefresh: @convention(c) (UnsafeMutablePointer<git_odb_backend>?) -> Int32 = { backend in
    store(of: backend)?.refresh()
    return 0
}

private let storeFree: @convention(c) (UnsafeMutablePointer<git_odb_backend>?) -> Void = { backend in
    guard let backend else { return }
    if let payload = concord_odb_backend_payload(backend) { Unmanaged<ObjectStore>.fromOpaque(payload).release() }
    concord_odb_backend_free(backend)
}
