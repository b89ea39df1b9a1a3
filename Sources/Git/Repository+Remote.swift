internal import CGit2
internal import Foundation

extension Repository {
    /// The URL of a named remote (`remote.NAME.url` of the configuration, ``config(_:)``); nil
    /// when there is no such remote. Not `git_remote_lookup`: libgit2 1.5 leaks PCRE2's match
    /// data at every configuration entry its lookup's patterns do not match (`git_regexp_match`
    /// returns before freeing it), about 230 KB a lookup, and an agent asks at every sync.
    public func remoteURL(_ name: String) throws -> String? {
        try config("remote.\(name).url")
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
    ///   - access: how ssh is run (``SSHClient``), and credentials for https.
    ///   - limits: how long a server may take, and how much it may send before any object.
    ///   - largestObject: the largest object libgit2's indexer accepts in the pack it receives,
    ///     refused by its header before it is inflated, a delta's result included (a
    ///     process-wide setting of libgit2's, set for this fetch).
    ///   - connection: for an https or http remote, the connection to fetch over and keep
    ///     (``KeptConnection``); nil: one for this fetch alone.
    /// - Returns: the credential the remote accepted; nil when it asked for none.
    /// - Throws: ``GitError``: ``GitError/isAuthentication``, ``GitError/isHostKey`` and
    ///   ``GitError/isCertificate`` say why a server or this side refused the connection,
    ///   ``GitError/isNetwork`` that the remote cannot be reached (``GitError/isTimeout``: not in
    ///   time), ``GitError/isOversizedAnswer`` that it sent too much before any object.
    @discardableResult
    public func fetch(
        remote name: String, refspecs: [String], url: String? = nil, access: RemoteAccess? = nil, limits: NetworkLimits = NetworkLimits(),
        largestObject: Int = 1 << 30,
        progress: (@Sendable (TransferProgress) -> Void)? = nil, through connection: KeptConnection? = nil
    ) throws -> Credential? {
        Libgit2.ensure()
        try check("git_libgit2_opts", concord_git_set_pack_max_object_size(largestObject))
        if let connection, let address = try keptAddress(remote: name, url: url) {
            return try connection.run(repository: self, remote: name, address: address, limits: limits) { kept, operation in
                kept.callbacks.begin(access: access, progress: progress, operation: operation)
                try download(refspecs, remote: name, url: url, callbacks: kept.callbacks)
                return kept.callbacks.lastOffered
            }
        }
        let operation = NetworkOperation(limits: limits)
        let callbacks = RemoteCallbacks(access: access, progress: progress, operation: operation)
        try operation.run { try download(refspecs, remote: name, url: url, callbacks: callbacks) }
        return callbacks.lastOffered
    }

    /// libgit2's fetch of `refspecs` on an anonymous remote, through the transport `callbacks`
    /// give (a kept one's, handed on by `concord_forwarding_transport`), freed before this returns.
    private func download(_ refspecs: [String], remote name: String, url: String?, callbacks: RemoteCallbacks) throws {
        let remote = try anonymousRemote(name, url: url)
        defer { git_remote_free(remote) }
        var options = git_fetch_options()
        try check("git_fetch_options_init", git_fetch_options_init(&options, UInt32(GIT_FETCH_OPTIONS_VERSION)))
        options.prune = GIT_FETCH_NO_PRUNE
        options.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE
        options.follow_redirects = GIT_REMOTE_REDIRECT_NONE
        // FETCH_HEAD would hold the URL, a query token with it; nothing reads it.
        options.update_fetchhead = 0
        try withExtendedLifetime(callbacks) {
            callbacks.install(in: &options.callbacks)
            try withStringArray(refspecs) { array in
                try check("git_remote_fetch", git_remote_fetch(remote, &array, &options, "concord: fetch"))
            }
        }
    }

    /// An in-memory remote with the URL of the named remote (or `url`) and no fetch refspec of
    /// its own: libgit2 updates only the references the fetch names. (Fetched through the named
    /// remote, libgit2 also moves the remote-tracking reference its configured refspec maps the
    /// fetched branch to, "opportunistically", before anyone checked what arrived.)
    func anonymousRemote(_ name: String, url: String?) throws -> OpaquePointer? {
        guard let address = try url ?? remoteURL(name) else {
            throw GitError(code: .notFound, message: "the remote \(name) has no URL", function: "git_remote_url")
        }
        var options = git_remote_create_options()
        try check("git_remote_create_options_init", git_remote_create_options_init(&options, UInt32(GIT_REMOTE_CREATE_OPTIONS_VERSION)))
        options.repository = try pointer
        options.flags = GIT_REMOTE_CREATE_SKIP_DEFAULT_FETCHSPEC.rawValue | GIT_REMOTE_CREATE_SKIP_INSTEADOF.rawValue
        var remote: OpaquePointer?
        try check("git_remote_create_with_opts", git_remote_create_with_opts(&remote, address, &options))
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
