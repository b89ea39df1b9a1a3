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
    ///
    /// - Parameters:
    ///   - url: the URL to use for this fetch only (for example with a query the configuration
    ///     must not hold); nil uses the configured one.
    ///   - access: credentials and the host key check, for ssh and https.
    ///   - limits: how long a server may take, and how much it may send before any object.
    /// - Returns: the credential the remote accepted; nil when it asked for none.
    /// - Throws: ``GitError``: ``GitError/isAuthentication``, ``GitError/isHostKey`` and
    ///   ``GitError/isCertificate`` say why a server or this side refused the connection,
    ///   ``GitError/isNetwork`` that the remote cannot be reached (``GitError/isTimeout``: not in
    ///   time), ``GitError/isOversizedAnswer`` that it sent too much before any object.
    @discardableResult
    public func fetch(
        remote name: String, refspecs: [String], url: String? = nil, access: RemoteAccess? = nil, limits: NetworkLimits = NetworkLimits(),
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) throws -> Credential? {
        let remote = try lookupRemote(name, url: url)
        defer { git_remote_free(remote) }
        var options = git_fetch_options()
        try check("git_fetch_options_init", git_fetch_options_init(&options, UInt32(GIT_FETCH_OPTIONS_VERSION)))
        options.prune = GIT_FETCH_NO_PRUNE
        options.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE
        options.follow_redirects = GIT_REMOTE_REDIRECT_NONE
        // FETCH_HEAD would hold the URL, a query token with it; nothing reads it.
        options.update_fetchhead = 0
        let operation = NetworkOperation(limits: limits)
        let callbacks = RemoteCallbacks(access: access, progress: progress, operation: operation)
        try withExtendedLifetime(callbacks) {
            callbacks.install(in: &options.callbacks)
            try withStringArray(refspecs) { array in
                try operation.run { try check("git_remote_fetch", git_remote_fetch(remote, &array, &options, "concord: fetch")) }
            }
        }
        return callbacks.lastOffered
    }

    /// Pushes `refspecs` to the named remote (see ``fetch(remote:refspecs:url:access:limits:progress:)``
    /// for `url`, `access` and `limits`; a push receives no object, so the answer's limit covers
    /// all it receives).
    /// - Returns: the credential the remote accepted; nil when it asked for none.
    /// - Throws: ``GitError``: ``GitError/isNotFastForward`` when the remote refused because
    ///   it moved on, ``GitError/isNetwork`` when it cannot be reached, and the reasons a
    ///   fetch gives for a refused or failed connection.
    @discardableResult
    public func push(
        remote name: String, refspecs: [String], url: String? = nil, access: RemoteAccess? = nil, limits: NetworkLimits = NetworkLimits()
    ) throws -> Credential? {
        let remote = try lookupRemote(name, url: url)
        defer { git_remote_free(remote) }
        var options = git_push_options()
        try check("git_push_options_init", git_push_options_init(&options, UInt32(GIT_PUSH_OPTIONS_VERSION)))
        options.follow_redirects = GIT_REMOTE_REDIRECT_NONE
        let operation = NetworkOperation(limits: limits)
        let callbacks = RemoteCallbacks(access: access, operation: operation)
        try withExtendedLifetime(callbacks) {
            callbacks.install(in: &options.callbacks)
            try withStringArray(refspecs) { array in
                try operation.run { try check("git_remote_push", git_remote_push(remote, &array, &options)) }
            }
        }
        if let (reference, status) = callbacks.rejections.first {
            let moved = ["fast-forward", "fetch first", "stale", "failed to update ref"].contains { status.contains($0) }
            throw GitError(
                code: moved ? GIT_ENONFASTFORWARD.rawValue : GIT_ERROR.rawValue,
                errorClass: Int32(GIT_ERROR_REFERENCE.rawValue),
                message: "the remote refused \(reference): \(status)",
                function: "git_remote_push")
        }
        return callbacks.lastOffered
    }

    /// The named remote, with its URL replaced for this use only when `url` is given.
    func lookupRemote(_ name: String, url: String?) throws -> OpaquePointer? {
        var remote: OpaquePointer?
        try check("git_remote_lookup", git_remote_lookup(&remote, pointer, name))
        if let url {
            do {
                try check("git_remote_set_instance_url", git_remote_set_instance_url(remote, url))
            } catch {
                git_remote_free(remote)
                throw error
            }
        }
        return remote
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
