public import GitFormat

/// A cloud reached over ssh, https, http or `git://`: libgit2's smart transports connect (over
/// OpenSSH's client for ssh, with the credentials of ``RemoteAccess`` for https, and
/// time-outs); a fetch is Concord's own one-round upload-pack request, its pack indexed by
/// libgit2, and a push is Concord's own receive-pack over libgit2's transport, sending one pack of what
/// changed (``Repository/upload(_:to:expected:remote:url:access:limits:through:)``). Over https
/// and http, every fetch, push and peek of the cloud goes over one ``KeptConnection``.
public final class NetworkCloud: Cloud {
    /// The remote of the device's repository that names the cloud (`origin`).
    public let remote: String
    /// The URL for this use only (with a query the configuration must not hold); nil uses the
    /// remote's.
    public let url: String?
    /// How ssh is run, and credentials for https.
    public let access: RemoteAccess?
    /// How long the server may stall, and how much it may send before any object.
    public let limits: NetworkLimits
    /// The largest object a fetch accepts, in bytes.
    public var largestObject: Int
    /// The credential the server accepted in the last fetch or push; nil when it asked for none.
    public private(set) var acceptedCredential: Credential?
    /// The connection an https or http cloud is reached over.
    public let connection: KeptConnection

    /// The cloud `remote` names, reached with `access` within `limits`, over `connection` when
    /// it is https or http (nil: a connection of its own, closed with the cloud).
    public init(
        remote: String, url: String?, access: RemoteAccess?, limits: NetworkLimits, largestObject: Int, connection: KeptConnection? = nil
    ) {
        self.remote = remote
        self.url = url
        self.access = access
        self.limits = limits
        self.largestObject = largestObject
        self.connection = connection ?? KeptConnection()
    }

    /// Fetches `branch` in one round (``Repository/download(_:known:remote:url:access:limits:largestObject:progress:through:)``),
    /// naming `known` (the cloud's main as this device last saw it, then its own) and some of
    /// their ancestors as what this side has.
    public func fetch(_ branch: String, into repository: Repository, known: [OID], progress: (@Sendable (TransferProgress) -> Void)?) throws -> OID? {
        let (tip, accepted) = try repository.download(
            branch, known: known, remote: remote, url: url, access: access, limits: limits,
            largestObject: largestObject, progress: progress, through: connection)
        acceptedCredential = accepted
        return tip
    }

    /// The commit `branch` names on the server, from the references it advertises when a fetch
    /// connects; the session ends before anything else is said
    /// (``Repository/advertisedReference(_:remote:url:access:limits:through:)``).
    public func peek(_ branch: String, from repository: Repository) throws -> OID? {
        let (id, accepted) = try repository.advertisedReference(branch, remote: remote, url: url, access: access, limits: limits, through: connection)
        acceptedCredential = accepted
        return id
    }

    /// Moves `branch` on the server from `expected` to `target`, sending one pack of what
    /// changed (``Repository/upload(_:to:expected:remote:url:access:limits:through:)``).
    public func push(_ target: OID, to branch: String, expected: OID?, from repository: Repository) throws -> PushOutcome {
        let (outcome, accepted) = try repository.upload(
            target, to: branch, expected: expected, remote: remote, url: url, access: access, limits: limits, through: connection)
        acceptedCredential = accepted
        return outcome
    }
}
