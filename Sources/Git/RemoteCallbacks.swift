internal import CGit2
internal import FoundationEssentials

/// What libgit2's callbacks share during one connection's operation (a peek, a fetch, a push):
/// the credentials offered so far, transfer progress (which also tells the network watch that
/// objects arrive).
///
/// Passed to libgit2 as `payload` with `Unmanaged.passUnretained` inside `withExtendedLifetime`,
/// so that a callback called many times never releases it. A kept transport's callbacks
/// (``KeptTransport``) live as long as it does, since libgit2 keeps their payload, and serve
/// each of its operations in turn (``begin(access:progress:operation:)``).
final class RemoteCallbacks {
    private(set) var access: RemoteAccess?
    private(set) var progress: (@Sendable (TransferProgress) -> Void)?
    /// The network operation the callbacks belong to: told when objects arrive, the server sends
    /// a progress message or a pack is built.
    private(set) var operation: NetworkOperation?
    /// The next credential of `access` to offer.
    private var next = 0
    /// Credentials handed to libgit2 so far, as named in messages.
    private(set) var offered: [String] = []
    /// The credential handed to libgit2 last: the one the server accepted, when the operation succeeded.
    private(set) var lastOffered: Credential?
    /// The credential a kept transport sends with each request of this operation from the
    /// start (the one the last operation ended with; ``Subtransport/keepsState``): when the
    /// server refuses it, it is not offered again.
    private var presented: Credential?
    init(access: RemoteAccess?, progress: (@Sendable (TransferProgress) -> Void)? = nil, operation: NetworkOperation? = nil) {
        self.access = access
        self.progress = progress
        self.operation = operation
    }

    /// Starts another operation of the kept transport: its access, progress and network
    /// operation; no credential offered yet but the one the transport still holds, which the
    /// last operation ended with (a transport is dropped after any failure, ``KeptConnection``).
    func begin(access: RemoteAccess?, progress: (@Sendable (TransferProgress) -> Void)? = nil, operation: NetworkOperation) {
        self.access = access
        self.progress = progress
        self.operation = operation
        next = 0
        offered = []
        presented = lastOffered
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
        if access != nil { callbacks.credentials = credentialsCallback }
    }

    /// The callback and payload (these callbacks) that a pack's indexer reports to: the progress
    /// closure hears of the objects received, and the network watch learns that they arrive, as
    /// during libgit2's own fetch. Use inside `withExtendedLifetime(self)`.
    var indexerProgress: (callback: git_indexer_progress_cb, payload: UnsafeMutableRawPointer) {
        (transferProgressCallback, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Makes the credential to offer now, of a type in `allowed`; sets libgit2's error and
    /// returns `GIT_EAUTH` when none is left.
    fileprivate func acquire(_ out: UnsafeMutablePointer<OpaquePointer?>, allowed: UInt32) -> Int32 {
        guard let access else { return GIT_PASSTHROUGH.rawValue }
        while next < access.credentials.count {
            let credential = access.credentials[next]
            next += 1
            switch credential {
            case .password where credential == presented:
                // Sent with the refused request already.
                presented = nil
                offered.append(credential.description)
            case let .password(name, password) where allowed & GIT_CREDENTIAL_USERPASS_PLAINTEXT.rawValue != 0:
                offer(credential)
                return git_credential_userpass_plaintext_new(out, name, password)
            default:
                continue
            }
        }
        let message =
            offered.isEmpty
            ? "no credential to offer (the server accepts \(Self.describe(allowed)))"
            : "the server refused \(offered.joined(separator: ", "))"
        git_error_set_str(Int32(GIT_ERROR_CALLBACK.rawValue), message)
        return GIT_EAUTH.rawValue
    }

    private func offer(_ credential: Credential) {
        offered.append(credential.description)
        lastOffered = credential
    }

    private static func describe(_ allowed: UInt32) -> String {
        var kinds: [String] = []
        if allowed & GIT_CREDENTIAL_SSH_KEY.rawValue != 0 { kinds.append("ssh keys") }
        if allowed & GIT_CREDENTIAL_USERPASS_PLAINTEXT.rawValue != 0 { kinds.append("a user name and password") }
        if allowed & GIT_CREDENTIAL_SSH_INTERACTIVE.rawValue != 0 { kinds.append("keyboard-interactive") }
        return kinds.isEmpty ? "no method this side supports" : kinds.joined(separator: ", ")
    }
}

private let credentialsCallback: git_credential_acquire_cb = { out, _, _, allowed, payload in
    guard let out, let payload else { return GIT_PASSTHROUGH.rawValue }
    return Unmanaged<RemoteCallbacks>.fromOpaque(payload).takeUnretainedValue().acquire(out, allowed: allowed)
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
