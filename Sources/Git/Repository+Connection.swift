internal import CGit2
public import GitFormat

extension Repository {
    /// A connection to a network remote, open while ``connect(remote:url:access:limits:for:progress:through:_:)``
    /// runs its body: the references the server advertised, and libgit2's subtransport under it.
    struct RemoteConnection {
        /// The URL connected to.
        let address: String
        /// The transport the URL names.
        let kind: Subtransport.Kind
        /// What the server advertised, read with GitFormat's checks.
        let advertisement: ReferenceAdvertisement
        /// The subtransport whose stream carries the rest of the conversation (a push's, a fetch's).
        let subtransport: UnsafeMutablePointer<git_smart_subtransport>
        /// The operation's callbacks: what a pack received reports its progress to.
        let callbacks: RemoteCallbacks
    }

    /// The commit the network remote's `reference` names, as the remote advertises it when a
    /// fetch connects: a session is opened, the advertisement read and the session ended (a
    /// kept connection stays open for the next); no object is asked for.
    ///
    /// Connects as ``upload(_:to:expected:remote:url:access:limits:through:)`` does (the same
    /// credentials, host key check, time-outs and answer limit, over `connection` for https and
    /// http), to upload-pack, which a device allowed only to read may reach.
    /// - Returns: the commit (nil when the remote has no such reference), and the credential
    ///   the remote accepted (nil when it asked for none).
    /// - Throws: ``GitError``: the reasons ``download(_:known:remote:url:access:limits:largestObject:progress:through:)``
    ///   gives for a refused or failed connection, and a malformed advertisement.
    public func advertisedReference(
        _ reference: String, remote name: String, url: String? = nil, access: RemoteAccess? = nil, limits: NetworkLimits = NetworkLimits(),
        through connection: KeptConnection? = nil
    ) throws -> (id: OID?, accepted: Credential?) {
        let (id, accepted) = try connect(remote: name, url: url, access: access, limits: limits, for: .uploadPack, through: connection) { connection in
            connection.advertisement.id(of: reference)
        }
        return (id, accepted)
    }

    /// Connects to the named network remote (ssh, https, http or `git://`) for `service` through
    /// libgit2's transports, runs `body` with the connection, and closes it; `progress` hears of
    /// a pack received (``RemoteCallbacks/indexerProgress``).
    ///
    /// libgit2's `connect` is the only call that installs a transport's credential and
    /// certificate callbacks; it reads the advertisement through a subtransport that records
    /// its bytes (``Subtransport``, at most the answer limit), which Concord then reads itself
    /// (``ReferenceAdvertisement``). Every socket is Concord's, watched within `limits`
    /// (``NetworkOperation``). An https or http remote is reached over `connection` when one is
    /// given (``KeptConnection``), and the transport is closed, not freed, after `body`.
    /// - Returns: what `body` returns, and the credential the remote accepted (nil when it
    ///   asked for none).
    /// - Throws: ``GitError`` for a URL that is no network remote, a refused or failed
    ///   connection, a malformed advertisement, and what `body` throws.
    func connect<T>(
        remote name: String, url: String?, access: RemoteAccess?, limits: NetworkLimits, for service: Subtransport.Service,
        progress: (@Sendable (TransferProgress) -> Void)? = nil, through connection: KeptConnection? = nil, _ body: (RemoteConnection) throws -> T
    ) throws -> (result: T, accepted: Credential?) {
        if let connection, let address = try keptAddress(remote: name, url: url) {
            return try connection.run(repository: self, remote: name, address: address, limits: limits) { kept, operation in
                kept.callbacks.begin(access: access, progress: progress, operation: operation)
                return try converse(over: kept.pointer, capture: kept.capture, callbacks: kept.callbacks, address: address, kind: .http, for: service, body)
            }
        }
        let remote = try anonymousRemote(name, url: url)
        defer { git_remote_free(remote) }
        guard let address = git_remote_url(remote).map({ String(cString: $0) }), let kind = Subtransport.Kind(url: address) else {
            throw GitError(message: "\(service.step) needs an ssh, https, http or git:// remote", function: "git_transport_smart")
        }
        let capture = Subtransport(kind, recordingAtMost: limits.answerLimit, ssh: access?.ssh)
        let operation = NetworkOperation(limits: limits)
        let callbacks = RemoteCallbacks(access: access, progress: progress, operation: operation)
        return try withExtendedLifetime((capture, callbacks)) {
            try operation.run {
                var definition = git_smart_subtransport_definition(
                    callback: subtransportCallback, rpc: kind == .http ? 1 : 0, param: Unmanaged.passUnretained(capture).toOpaque())
                var transport: UnsafeMutablePointer<git_transport>?
                try check("git_transport_smart", git_transport_smart(&transport, remote, &definition))
                guard let transport else { throw GitError(message: "libgit2 made no transport for \(address)", function: "git_transport_smart") }
                defer { transport.pointee.free(transport) }
                return try converse(over: transport, capture: capture, callbacks: callbacks, address: address, kind: kind, for: service, body)
            }
        }
    }

    /// The URL of the remote `name` (or `url`) when it is https or http, which a kept connection
    /// serves; nil for any other.
    func keptAddress(remote name: String, url: String?) throws -> String? {
        guard let address = try url ?? remoteURL(name), Subtransport.Kind(url: address) == .http else { return nil }
        return address
    }

    /// Connects `transport` to `address` for `service` with `callbacks`, reads the advertisement
    /// `capture` recorded, runs `body`, and closes the transport.
    private func converse<T>(
        over transport: UnsafeMutablePointer<git_transport>, capture: Subtransport, callbacks: RemoteCallbacks, address: String, kind: Subtransport.Kind,
        for service: Subtransport.Service, _ body: (RemoteConnection) throws -> T
    ) throws -> (result: T, accepted: Credential?) {
        guard let subtransport = capture.subtransport else {
            throw GitError(message: "libgit2 made no transport for \(address)", function: "git_transport_smart")
        }
        defer { _ = transport.pointee.close(transport) }
        var options = git_remote_connect_options()
        try check("git_remote_connect_options_init", git_remote_connect_options_init(&options, UInt32(GIT_REMOTE_CONNECT_OPTIONS_VERSION)))
        options.follow_redirects = GIT_REMOTE_REDIRECT_NONE
        return try withExtendedLifetime(callbacks) {
            callbacks.install(in: &options.callbacks)
            try check("git_transport connect", transport.pointee.connect(transport, address, Int32(service.direction.rawValue), &options))
            let connection = RemoteConnection(
                address: address, kind: kind, advertisement: try capture.advertisement(of: service), subtransport: subtransport, callbacks: callbacks)
            return (try body(connection), callbacks.lastOffered)
        }
    }
}
