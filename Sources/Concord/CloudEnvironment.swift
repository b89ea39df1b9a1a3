internal import Foundation
internal import Git
internal import GitFormat
#if canImport(Glibc)
internal import Glibc
#endif

/// What the environment says about reaching a cloud, read once: where ssh keys and known
/// hosts are, the ssh-agent, credentials given for an https cloud, extra certificate
/// authorities.
struct CloudEnvironment {
    /// `HOME`: `~/.ssh` is below it.
    var home: String
    /// This user's login name: the ssh user when the URL names none.
    var loginName: String
    /// `SSH_AUTH_SOCK`, when set and not empty.
    var agentSocket: String?
    /// `CONCORD_SSH_KEY`: the one key file to offer instead of `~/.ssh/id_*`.
    var sshKey: String?
    /// `CONCORD_CLOUD_USERNAME`.
    var username: String?
    /// `CONCORD_CLOUD_PASSWORD` (a token works).
    var password: String?
    /// `SSL_CERT_FILE`: certificate authorities trusted as well as the system's.
    var certificateFile: String?

    /// The process's environment.
    static var current: CloudEnvironment {
        let variables = ProcessInfo.processInfo.environment
        func value(_ name: String) -> String? { variables[name].flatMap { $0.isEmpty ? nil : $0 } }
        var login = value("USER") ?? "git"
        if let entry = getpwuid(getuid()), let name = entry.pointee.pw_name { login = String(cString: name) }
        return CloudEnvironment(
            home: value("HOME") ?? NSHomeDirectory(), loginName: login, agentSocket: value("SSH_AUTH_SOCK"),
            sshKey: value("CONCORD_SSH_KEY"), username: value("CONCORD_CLOUD_USERNAME"),
            password: value("CONCORD_CLOUD_PASSWORD"), certificateFile: value("SSL_CERT_FILE"))
    }

    /// The key files offered when `CONCORD_SSH_KEY` is not set, in this order.
    static let defaultKeyNames = ["id_ed25519", "id_ecdsa", "id_rsa"]

    /// The ssh credentials, in the order offered: the agent's keys, then `CONCORD_SSH_KEY` or
    /// else each of `~/.ssh/id_ed25519`, `id_ecdsa`, `id_rsa` that exists.
    var sshCredentials: [Credential] {
        var credentials: [Credential] = agentSocket.map { [.sshAgent(socket: $0)] } ?? []
        if let sshKey {
            credentials.append(.sshKey(privateKey: sshKey))
        } else {
            for name in Self.defaultKeyNames where FileManager.default.fileExists(atPath: "\(home)/.ssh/\(name)") {
                credentials.append(.sshKey(privateKey: "\(home)/.ssh/\(name)"))
            }
        }
        return credentials
    }

    /// The user's and the system's known_hosts files.
    var knownHosts: KnownHosts { KnownHosts(files: KnownHosts.standardFiles(home: home)) }

    /// The secrets given with a new cloud URL to init or clone, and where they came from: the
    /// URL's, with the environment's password (and user name, when it gives one) for an https
    /// URL that holds none; nil when there are none.
    func givenSecrets(_ address: CloudAddress) -> (secrets: CloudSecrets, source: String)? {
        guard var secrets = address.secrets else {
            return secrets(for: address).map { ($0, "given in CONCORD_CLOUD_USERNAME and CONCORD_CLOUD_PASSWORD") }
        }
        if secrets.password == nil, let given = self.secrets(for: address) {
            secrets.username = given.username
            secrets.password = given.password
            return (secrets, "given in the URL and CONCORD_CLOUD_PASSWORD")
        }
        return (secrets, "given in the URL")
    }

    /// The user name and password the environment gives for an https cloud (the user name
    /// defaults to the URL's, then to `storedUsername`, then to the login name); nil when it
    /// gives no password.
    func secrets(for address: CloudAddress, storedUsername: String? = nil) -> CloudSecrets? {
        guard address.transport == .http, let password else { return nil }
        return CloudSecrets(
            url: address.url, username: username ?? address.username ?? storedUsername ?? loginName, password: password,
            query: address.query)
    }
}
