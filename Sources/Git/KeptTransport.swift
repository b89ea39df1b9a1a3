internal import CGit2

/// libgit2's smart transport over its http subtransport, for an https or http remote, kept from
/// one operation to the next (``KeptConnection``), and the one owner of what it needs alive while
/// it lives.
///
/// libgit2 1.5 allows a smart transport to connect again: each `connect` frees the last
/// stream, closes the subtransport and asks for a new advertisement. Its http `close` drops
/// only the credentials and the URL, so a kept transport's subtransport does not hand it on
/// (``Subtransport/keepsState``): an operation after the first sends the credentials at once
/// instead of being refused (401) and sending its request again. The http subtransport's client, made at the first
/// request, holds its connection open while the server keeps it alive, and is freed only with
/// the transport: so every operation through this transport, a fetch, a push or a peek (each
/// through ``Repository/connect(remote:url:access:limits:for:progress:through:_:)``), goes over
/// that connection.
///
/// What libgit2 holds pointers to lives as long as the transport: the remote that owns it (read
/// at each connect), and so the repository; the callbacks' payload (the client keeps the one of
/// the first connect); the subtransport's capture. (libgit2 1.5 never resets the capabilities
/// a smart transport read; Concord reads each advertisement's own, ``ReferenceAdvertisement``.)
final class KeptTransport {
    /// The repository the transport's remote belongs to.
    let repository: Repository
    /// The URL the transport connects to.
    let address: String
    /// The most bytes of an advertisement kept (``NetworkLimits/answerLimit``).
    let answerLimit: Int
    /// The subtransport, recording each advertisement.
    let capture: Subtransport
    /// The callbacks of every operation; their per-operation state is set by
    /// ``RemoteCallbacks/begin(access:progress:operation:)``.
    let callbacks: RemoteCallbacks
    /// The sockets its HTTP client holds open.
    let sockets = KeptSockets()
    /// libgit2's transport.
    let pointer: UnsafeMutablePointer<git_transport>
    private let remote: OpaquePointer

    /// A transport for the http or https remote `address` of `repository` (the URL of its remote
    /// `name`, or another for this use only); it connects at its first operation.
    /// - Throws: ``GitError`` when `address` is no http or https URL, or libgit2 fails.
    init(repository: Repository, remote name: String, address: String, answerLimit: Int) throws {
        guard Subtransport.Kind(url: address) == .http else {
            throw GitError(message: "a kept connection needs an https or http remote", function: "git_transport_smart")
        }
        guard let remote = try repository.anonymousRemote(name, url: address) else {
            throw GitError(message: "libgit2 made no remote for \(address)", function: "git_remote_create_with_opts")
        }
        let capture = Subtransport(.http, recordingAtMost: answerLimit, ssh: nil, keepsState: true)
        var definition = git_smart_subtransport_definition(callback: subtransportCallback, rpc: 1, param: Unmanaged.passUnretained(capture).toOpaque())
        let made: UnsafeMutablePointer<git_transport>
        do {
            var transport: UnsafeMutablePointer<git_transport>?
            try check("git_transport_smart", git_transport_smart(&transport, remote, &definition))
            guard let transport, capture.subtransport != nil else {
                if let transport { transport.pointee.free(transport) }
                throw GitError(message: "libgit2 made no transport for \(address)", function: "git_transport_smart")
            }
            made = transport
        } catch {
            git_remote_free(remote)
            throw error
        }
        self.repository = repository
        self.address = address
        self.answerLimit = answerLimit
        self.capture = capture
        self.remote = remote
        pointer = made
        callbacks = RemoteCallbacks(access: nil)
    }

    deinit {
        // Closes the connection (libgit2's HTTP client, Concord's socket), then the remote that
        // owned the transport.
        pointer.pointee.free(pointer)
        git_remote_free(remote)
    }
}

@available(*, unavailable)
extension KeptTransport: Sendable {}
