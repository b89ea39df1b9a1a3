internal import CGit2
public import GitFormat

extension Repository {
    /// A connection to a network remote, open while ``connect(remote:url:access:limits:for:_:)``
    /// runs its body: the references the server advertised, and libgit2's subtransport under it.
    struct RemoteConnection {
        /// The URL connected to.
        let address: String
        /// The transport the URL names.
        let kind: Subtransport.Kind
        /// What the server advertised, read with GitFormat's checks.
        let advertisement: ReferenceAdvertisement
        /// The subtransport whose stream carries the rest of the conversation (a push's).
        let subtransport: UnsafeMutablePointer<git_smart_subtransport>
    }

    /// The commit the network remote's `reference` names, as the remote advertises it when a
    /// fetch connects: the connection is opened, the advertisement read and the connection
    /// closed; no object is asked for.
    ///
    /// Connects as ``upload(_:to:expected:remote:url:access:limits:)`` does (the same
    /// credentials, host key check, time-outs and answer limit), to upload-pack, which a device
    /// allowed only to read may reach.
    /// - Returns: the commit (nil when the remote has no such reference), and the credential
    ///   the remote accepted (nil when it asked for none).
    /// - Throws: ``GitError``: the reasons ``fetch(remote:refspecs:url:access:limits:largestObject:progress:)``
    ///   gives for a refused or failed connection, and a malformed advertisement.
    public func advertisedReference(
        _ reference: String, remote name: String, url: String? = nil, access: RemoteAccess? = nil, limits: NetworkLimits = NetworkLimits()
    ) throws -> (id: OID?, accepted: Credential?) {
        let (id, accepted) = try connect(remote: name, url: url, access: access, limits: limits, for: .uploadPack) { connection in
            connection.advertisement.id(of: reference)
        }
        return (id, accepted)
    }

    /// Connects to the named network remote (ssh, https, http or `git://`) for `service` through
    /// libgit2's transports, runs `body` with the connection, and closes it.
    ///
    /// libgit2's `connect` is the only call that installs a transport's credential and
    /// certificate callbacks; it reads the advertisement through a subtransport that records
    /// its bytes (``Subtransport``, at most the answer limit), which Concord then reads itself
    /// (``ReferenceAdvertisement``). Every socket is Concord's, watched within `limits`
    /// (``NetworkOperation``).
    /// - Returns: what `body` returns, and the credential the remote accepted (nil when it
    ///   asked for none).
    /// - Throws: ``GitError`` for a URL that is no network remote, a refused or failed
    ///   connection, a malformed advertisement, and what `body` throws.
    func connect<T>(
        remote name: String, url: String?, access: RemoteAccess?, limits: NetworkLimits, for service: Subtransport.Service,
        _ body: (RemoteConnection) throws -> T
    ) throws -> (result: T, accepted: Credential?) {
        let remote = try anonymousRemote(name, url: url)
        defer { git_remote_free(remote) }
        guard let address = git_remote_url(remote).map({ String(cString: $0) }), let kind = Subtransport.Kind(url: address) else {
            throw GitError(message: "\(service.step) needs an ssh, https, http or git:// remote", function: "git_transport_smart")
        }
        let capture = Subtransport(kind, recordingAtMost: limits.answerLimit, ssh: access?.ssh)
        let operation = NetworkOperation(limits: limits)
        let callbacks = RemoteCallbacks(access: access, operation: operation)
        return try withExtendedLifetime((capture, callbacks)) {
            try operation.run {
                var definition = git_smart_subtransport_definition(
                    callback: subtransportCallback, rpc: kind == .http ? 1 : 0, param: Unmanaged.passUnretained(capture).toOpaque())
                var transport: UnsafeMutablePointer<git_transport>?
                try check("git_transport_smart", git_transport_smart(&transport, remote, &definition))
                guard let transport, let subtransport = capture.subtransport else {
                    throw GitError(message: "libgit2 made no transport for \(address)", function: "git_transport_smart")
                }
                defer {
                    _ = transport.pointee.close(transport)
                    transport.pointee.free(transport)
                }
                var options = git_remote_connect_options()
                try check("git_remote_connect_options_init", git_remote_connect_options_init(&options, UInt32(GIT_REMOTE_CONNECT_OPTIONS_VERSION)))
                options.follow_redirects = GIT_REMOTE_REDIRECT_NONE
                callbacks.install(in: &options.callbacks)
                try check("git_transport connect", transport.pointee.connect(transport, address, Int32(service.direction.rawValue), &options))
                let connection = RemoteConnection(
                    address: address, kind: kind, advertisement: try capture.advertisement(of: service), subtransport: subtransport)
                return (try body(connection), callbacks.lastOffered)
            }
        }
    }
}
