/// What a network transport needs to reach a remote: the credentials libgit2 offers (https),
/// and how OpenSSH's client is run (ssh). Local paths and `git://` use none of it.
public struct RemoteAccess: Sendable {
    /// The credentials to offer, in this order: libgit2 asks for the next one after each
    /// refusal, and the operation fails once all were refused.
    public var credentials: [Credential]
    /// How `ssh` is run for an ssh URL (its keys, known hosts and kept connection); nil runs it
    /// with the account's files and keeps no connection.
    public var ssh: SSHClient?

    /// Creates the access for one remote.
    public init(credentials: [Credential], ssh: SSHClient? = nil) {
        self.credentials = credentials
        self.ssh = ssh
    }
}

/// One credential to offer a remote through libgit2 (ssh's keys are OpenSSH's business).
public enum Credential: Sendable, Equatable, CustomStringConvertible {
    /// A user name and password (or token), for https.
    case password(username: String, password: String)

    /// How the credential is named in messages: never the password, nor the user name (which may be a token).
    public var description: String {
        switch self {
        case .password: "the user name and password"
        }
    }
}
