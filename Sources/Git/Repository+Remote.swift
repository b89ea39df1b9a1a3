internal import CGit2
internal import FoundationEssentials

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

    /// An in-memory remote with the URL of the named remote (or `url`) and no fetch refspec of
    /// its own, for a transport to connect with.
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
