internal import CGit2
internal import Foundation

/// What libgit2's callbacks share during one fetch or upload: the credentials offered so
/// far, the host key check, transfer progress (which also tells the network watch that objects
/// arrive).
///
/// Passed to libgit2 as `payload` with `Unmanaged.passUnretained` inside `withExtendedLifetime`,
/// so that a callback called many times never releases it.
final class RemoteCallbacks {
    let access: RemoteAccess?
    let progress: (@Sendable (TransferProgress) -> Void)?
    /// The network operation the callbacks belong to: told when objects arrive, the server sends
    /// a progress message or a pack is built.
    let operation: NetworkOperation?
    /// The next credential of `access` to offer.
    private var next = 0
    /// Credentials handed to libgit2 so far, as named in messages.
    private(set) var offered: [String] = []
    /// The credential handed to libgit2 last: the one the server accepted, when the operation succeeded.
    private(set) var lastOffered: Credential?
    /// Credentials passed over, with the reason.
    private(set) var skipped: [String] = []

    init(access: RemoteAccess?, progress: (@Sendable (TransferProgress) -> Void)? = nil, operation: NetworkOperation? = nil) {
        self.access = access
        self.progress = progress
        self.operation = operation
    }

    /// Points `callbacks` at this state. Call inside `withExtendedLifetime(self)`, for the
    /// whole libgit2 call.
    func install(in callbacks: inout git_remote_callbacks) {
        callbacks.payload = Unmanaged.passUnretained(self).toOpaque()
        if progress != nil || operation != nil { callbacks.transfer_progress = transferProgressCallback }
        if operation != nil {
            callbacks.sideband_progress = sidebandProgressCallback
            callbacks.pack_progress = packProgressCallback
        }
        if access != nil {
            callbacks.credentials = credentialsCallback
            callbacks.certificate_check = certificateCheckCallback
        }
    }

    /// Makes the credential to offer now, of a type in `allowed`; sets libgit2's error and
    /// returns `GIT_EAUTH` when none is left.
    fileprivate func acquire(_ out: UnsafeMutablePointer<OpaquePointer?>, username: String?, allowed: UInt32) -> Int32 {
        guard let access else { return GIT_PASSTHROUGH.rawValue }
        if allowed == GIT_CREDENTIAL_USERNAME.rawValue {
            return git_credential_username_new(out, access.sshUser)
        }
        let user = username ?? access.sshUser
        while next < access.credentials.count {
            let credential = access.credentials[next]
            next += 1
            switch credential {
            case let .sshAgent(socket) where allowed & GIT_CREDENTIAL_SSH_KEY.rawValue != 0:
                guard SSHKeyFile.agentAnswers(at: socket) else {
                    skipped.append("ssh-agent (\(socket) does not answer)")
                    continue
                }
                offer(credential)
                return git_credential_ssh_key_from_agent(out, user)
            case let .sshKey(path) where allowed & GIT_CREDENTIAL_SSH_KEY.rawValue != 0:
                if let problem = SSHKeyFile.problem(at: path) {
                    skipped.append("\(path) (\(problem))")
                    continue
                }
                offer(credential)
                let publicKey = path + ".pub"
                return git_credential_ssh_key_new(
                    out, user, FileManager.default.fileExists(atPath: publicKey) ? publicKey : nil, path, nil)
            case let .password(name, password) where allowed & GIT_CREDENTIAL_USERPASS_PLAINTEXT.rawValue != 0:
                offer(credential)
                return git_credential_userpass_plaintext_new(out, name, password)
            default:
                continue
            }
        }
        var message =
            offered.isEmpty
            ? "no credential to offer (the server accepts \(Self.describe(allowed)))"
            : "the server refused \(offered.joined(separator: ", "))"
        if !skipped.isEmpty { message += "; skipped \(skipped.joined(separator: ", "))" }
        git_error_set_str(Int32(GIT_ERROR_CALLBACK.rawValue), message)
        return GIT_EAUTH.rawValue
    }

    /// Decides on an ssh host key by ``HostKeyCheck``; leaves TLS certificates to libgit2's
    /// verification (which refuses any it cannot verify).
    fileprivate func check(_ certificate: UnsafeMutablePointer<git_cert>, host: String?) -> Int32 {
        guard certificate.pointee.cert_type == GIT_CERT_HOSTKEY_LIBSSH2, let check = access?.hostKeys else {
            return GIT_PASSTHROUGH.rawValue
        }
        let hostKey = UnsafeMutableRawPointer(certificate).assumingMemoryBound(to: git_cert_hostkey.self).pointee
        guard hostKey.type.rawValue & GIT_CERT_SSH_RAW.rawValue != 0, let raw = hostKey.hostkey else {
            return refuse("the server's host key cannot be read")
        }
        guard host?.lowercased() == check.host.lowercased() else {
            return refuse("libgit2 connected to \(host ?? "?"), not to \(check.host)")
        }
        let key = Array(UnsafeRawBufferPointer(start: raw, count: hostKey.hostkey_len))
        let type = KnownHosts.keyType(of: key)
        var fingerprint = "of unknown fingerprint"
        if hostKey.type.rawValue & GIT_CERT_SSH_SHA256.rawValue != 0 {
            var digest = hostKey.hash_sha256
            let text = withUnsafeBytes(of: &digest) { Data($0).base64EncodedString() }
            fingerprint = "SHA256:" + text.replacingOccurrences(of: "=", with: "")
        }
        let name = KnownHosts.name(host: check.host, port: check.port)
        let file = check.knownHosts.files.first ?? "~/.ssh/known_hosts"
        switch check.knownHosts.verdict(forKey: key, host: check.host, port: check.port) {
        case .trusted:
            return 0
        case let .unknown(types):
            let portOption = check.port == 22 ? "" : "-p \(check.port) "
            let also = types.isEmpty ? "" : " (it is listed only with \(types.joined(separator: ", ")) keys)"
            return refuse(
                "\(name) is not a known host\(also): its \(type) key \(fingerprint) is not in \(file); "
                    + "if that is the server's key, trust it with: ssh-keyscan \(portOption)-t \(type) \(check.host) >> \(file)")
        case let .changed(listed, line):
            return refuse(
                "THE HOST KEY OF \(name) HAS CHANGED: it presents the \(type) key \(fingerprint), "
                    + "not the one in \(listed) line \(line); someone may be intercepting the connection. "
                    + "If the server's key really changed, remove the old one with: ssh-keygen -R '\(name)' -f \(listed)")
        case let .revoked(listed, line):
            return refuse("the \(type) key \(fingerprint) of \(name) is marked @revoked in \(listed) line \(line)")
        }
    }

    private func offer(_ credential: Credential) {
        offered.append(credential.description)
        lastOffered = credential
    }

    private func refuse(_ message: String) -> Int32 {
        git_error_set_str(Int32(GIT_ERROR_SSH.rawValue), message)
        return GIT_ECERTIFICATE.rawValue
    }

    private static func describe(_ allowed: UInt32) -> String {
        var kinds: [String] = []
        if allowed & GIT_CREDENTIAL_SSH_KEY.rawValue != 0 { kinds.append("ssh keys") }
        if allowed & GIT_CREDENTIAL_USERPASS_PLAINTEXT.rawValue != 0 { kinds.append("a user name and password") }
        if allowed & GIT_CREDENTIAL_SSH_INTERACTIVE.rawValue != 0 { kinds.append("keyboard-interactive") }
        return kinds.isEmpty ? "no method this side supports" : kinds.joined(separator: ", ")
    }
}

private let credentialsCallback: git_credential_acquire_cb = { out, _, username, allowed, payload in
    guard let out, let payload else { return GIT_PASSTHROUGH.rawValue }
    let state = Unmanaged<RemoteCallbacks>.fromOpaque(payload).takeUnretainedValue()
    return state.acquire(out, username: username.map { String(cString: $0) }, allowed: allowed)
}

private let certificateCheckCallback: git_transport_certificate_check_cb = { certificate, _, host, payload in
    guard let certificate, let payload else { return GIT_PASSTHROUGH.rawValue }
    let state = Unmanaged<RemoteCallbacks>.fromOpaque(payload).takeUnretainedValue()
    return state.check(certificate, host: host.map { String(cString: $0) })
}

private let transferProgressCallback: git_indexer_progress_cb = { stats, payload in
    guard let stats, let payload else { return 0 }
    let state = Unmanaged<RemoteCallbacks>.fromOpaque(payload).takeUnretainedValue()
    state.operation?.noteObjectsArriving()
    let value = stats.pointee
    state.progress?(
        TransferProgress(
            totalObjects: Int(value.total_objects), receivedObjects: Int(value.received_objects),
            indexedObjects: Int(value.indexed_objects), receivedBytes: Int(value.received_bytes)))
    return 0
}

private let sidebandProgressCallback: git_transport_message_cb = { _, _, payload in
    guard let payload else { return 0 }
    Unmanaged<RemoteCallbacks>.fromOpaque(payload).takeUnretainedValue().operation?.noteProgress()
    return 0
}

private let packProgressCallback: git_packbuilder_progress = { _, _, _, payload in
    guard let payload else { return 0 }
    Unmanaged<RemoteCallbacks>.fromOpaque(payload).takeUnretainedValue().operation?.noteProgress()
    return 0
}
