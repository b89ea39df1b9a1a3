/// What a network transport needs to reach a remote: who this side is, and how it decides to
/// trust the other side. Local paths and `git://` use none of it.
public struct RemoteAccess: Sendable {
    /// The credentials to offer, in this order: libgit2 asks for the next one after each
    /// refusal, and the operation fails once all were refused.
    public var credentials: [Credential]
    /// The user name for an ssh URL that names none.
    public var sshUser: String
    /// How to check an ssh server's host key; nil leaves the check to libgit2 (which reads
    /// `~/.ssh/known_hosts` but cannot tell `[host]:port` entries apart from the callback).
    public var hostKeys: HostKeyCheck?

    /// Creates the access for one remote.
    public init(credentials: [Credential], sshUser: String, hostKeys: HostKeyCheck?) {
        self.credentials = credentials
        self.sshUser = sshUser
        self.hostKeys = hostKeys
    }
}

/// One credential to offer a remote.
public enum Credential: Sendable, Equatable, CustomStringConvertible {
    /// The keys of the ssh-agent listening on this socket (`SSH_AUTH_SOCK`).
    case sshAgent(socket: String)
    /// A private key file (its `.pub` beside it, when present, is read for the public half).
    /// A key protected by a passphrase is skipped: load it into ssh-agent instead.
    case sshKey(privateKey: String)
    /// A user name and password (or token), for https and for ssh servers that take passwords.
    case password(username: String, password: String)

    /// How the credential is named in messages: never the password, nor the user name (which may be a token).
    public var description: String {
        switch self {
        case .sshAgent: "ssh-agent"
        case let .sshKey(path): path
        case .password: "the user name and password"
        }
    }
}

/// How to check the key an ssh server presents: against known_hosts files, under the host
/// name and port the URL gives (libgit2 1.5 does not tell its callback the port).
public struct HostKeyCheck: Sendable {
    /// The host as the URL names it.
    public var host: String
    /// The port the URL names, 22 when it names none.
    public var port: Int
    /// The keys the user trusts.
    public var knownHosts: KnownHosts

    /// Creates a check of `host`'s key on `port` against `knownHosts`.
    public init(host: String, port: Int, knownHosts: KnownHosts) {
        self.host = host
        self.port = port
        self.knownHosts = knownHosts
    }
}
