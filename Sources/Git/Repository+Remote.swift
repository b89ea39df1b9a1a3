internal import CGit2
internal import Foundation

extension Repository {
    /// The URL of a named remote; nil when there is no such remote.
    public func remoteURL(_ name: String) throws -> String? {
        var remote: OpaquePointer?
        let result = git_remote_lookup(&remote, pointer, name)
        if result == GIT_ENOTFOUND.rawValue {
            git_error_clear()
            return nil
        }
        try check("git_remote_lookup", result)
        defer { git_remote_free(remote) }
        return git_remote_url(remote).map { String(cString: $0) }
    }

    /// Creates the named remote, or changes its URL when it exists.
    public func setRemote(_ name: String, url: String) throws {
        if try remoteURL(name) != nil {
            try check("git_remote_set_url", git_remote_set_url(pointer, name, url))
        } else {
            var remote: OpaquePointer?
            try check("git_remote_create", git_remote_create(&remote, pointer, name, url))
            git_remote_free(remote)
        }
    }

    /// Fetches `refspecs` from the named remote.
    /// - Throws: ``GitError`` (``GitError/isNetwork`` when the remote cannot be reached).
    public func fetch(remote name: String, refspecs: [String], progress: (@Sendable (TransferProgress) -> Void)? = nil) throws {
        var remote: OpaquePointer?
        try check("git_remote_lookup", git_remote_lookup(&remote, pointer, name))
        defer { git_remote_free(remote) }
        var options = git_fetch_options()
        try check("git_fetch_options_init", git_fetch_options_init(&options, UInt32(GIT_FETCH_OPTIONS_VERSION)))
        options.prune = GIT_FETCH_NO_PRUNE
        options.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE
        let box = ProgressBox(progress)
        try withExtendedLifetime(box) {
            if progress != nil {
                options.callbacks.transfer_progress = transferProgressCallback
                options.callbacks.payload = Unmanaged.passUnretained(box).toOpaque()
            }
            try withStringArray(refspecs) { array in
                try check("git_remote_fetch", git_remote_fetch(remote, &array, &options, "concord: fetch"))
            }
        }
    }

    /// Pushes `refspecs` to the named remote.
    /// - Throws: ``GitError``: ``GitError/isNotFastForward`` when the remote refused because
    ///   it moved on, ``GitError/isNetwork`` when it cannot be reached.
    public func push(remote name: String, refspecs: [String]) throws {
        var remote: OpaquePointer?
        try check("git_remote_lookup", git_remote_lookup(&remote, pointer, name))
        defer { git_remote_free(remote) }
        var options = git_push_options()
        try check("git_push_options_init", git_push_options_init(&options, UInt32(GIT_PUSH_OPTIONS_VERSION)))
        let box = PushStatusBox()
        try withExtendedLifetime(box) {
            options.callbacks.push_update_reference = pushUpdateReferenceCallback
            options.callbacks.payload = Unmanaged.passUnretained(box).toOpaque()
            try withStringArray(refspecs) { array in
                try check("git_remote_push", git_remote_push(remote, &array, &options))
            }
        }
        if let (reference, status) = box.rejections.first {
            let moved = ["fast-forward", "fetch first", "stale", "failed to update ref"].contains { status.contains($0) }
            throw GitError(
                code: moved ? GIT_ENONFASTFORWARD.rawValue : GIT_ERROR.rawValue,
                errorClass: Int32(GIT_ERROR_REFERENCE.rawValue),
                message: "the remote refused \(reference): \(status)",
                function: "git_remote_push")
        }
    }
}

/// Calls `body` with a `git_strarray` whose strings stay valid for the whole call.
func withStringArray<T>(_ strings: [String], _ body: (inout git_strarray) throws -> T) rethrows -> T {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    var pointers = copies.map { UnsafeMutablePointer<CChar>($0) }
    return try pointers.withUnsafeMutableBufferPointer { buffer in
        var array = git_strarray(strings: buffer.baseAddress, count: buffer.count)
        return try body(&array)
    }
}

final class ProgressBox {
    let progress: (@Sendable (TransferProgress) -> Void)?
    init(_ progress: (@Sendable (TransferProgress) -> Void)?) { self.progress = progress }
}

final class PushStatusBox {
    var rejections: [(String, String)] = []
}

let transferProgressCallback: git_indexer_progress_cb = { stats, payload in
    guard let stats, let payload else { return 0 }
    let box = Unmanaged<ProgressBox>.fromOpaque(payload).takeUnretainedValue()
    let value = stats.pointee
    box.progress?(TransferProgress(
        totalObjects: Int(value.total_objects), receivedObjects: Int(value.received_objects),
        indexedObjects: Int(value.indexed_objects), receivedBytes: Int(value.received_bytes)))
    return 0
}

let pushUpdateReferenceCallback: @convention(c) (UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Int32 = { reference, status, payload in
    guard let payload, let status else { return 0 }
    let box = Unmanaged<PushStatusBox>.fromOpaque(payload).takeUnretainedValue()
    box.rejections.append((reference.map { String(cString: $0) } ?? "?", String(cString: status)))
    return 0
}
