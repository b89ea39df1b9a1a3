internal import FoundationEssentials
internal import Git
internal import GitFormat
#if canImport(Glibc)
internal import Glibc
internal import GitStore
#endif

/// What the environment says about reaching a cloud, read once: how OpenSSH's client is run
/// (the home folder whose `.ssh` it reads, the key given, where kept connections live),
/// credentials given for an https cloud, extra certificate authorities.
struct CloudEnvironment {
    /// `HOME`: `~/.ssh` is below it.
    var home: String
    /// This user's login name: the ssh user when the URL names none.
    var loginName: String
    /// `CONCORD_SSH_KEY`: the one key file ssh offers (with the agent's keys) instead of
    /// `~/.ssh/id_*`. The agent is `SSH_AUTH_SOCK`'s, which ssh reads itself.
    var sshKey: String?
    /// `CONCORD_CLOUD_USERNAME`.
    var username: String?
    /// `CONCORD_CLOUD_PASSWORD` (a token works).
    var password: String?
    /// `SSL_CERT_FILE`: certificate authorities trusted as well as the system's.
    var certificateFile: String?
    /// `XDG_RUNTIME_DIR`: this user's private folder for sockets, when the system gives one.
    var runtimeFolder: String?

    /// The process's environment.
    static var current: CloudEnvironment {
        func value(_ name: String) -> String? { ProcessVariable.value(name).flatMap { $0.isEmpty ? nil : $0 } }
        var login = value("USER") ?? "git"
        if let entry = getpwuid(getuid()), let name = entry.pointee.pw_name { login = String(cString: name) }
        return CloudEnvironment(
            home: value("HOME") ?? ProcessVariable.home, loginName: login,
            sshKey: value("CONCORD_SSH_KEY"), username: value("CONCORD_CLOUD_USERNAME"),
            password: value("CONCORD_CLOUD_PASSWORD"), certificateFile: value("SSL_CERT_FILE"), runtimeFolder: value("XDG_RUNTIME_DIR"))
    }

    /// The key files named in messages when `CONCORD_SSH_KEY` is not set, in OpenSSH's order.
    static let defaultKeyNames = ["id_rsa", "id_ecdsa", "id_ed25519"]

    /// How OpenSSH's client is run: with the files of `~/.ssh` below ``home``, `CONCORD_SSH_KEY`
    /// as its one key file when set, connections kept under `$XDG_RUNTIME_DIR/concord-ssh`, else
    /// `/tmp/concord-ssh-UID` (each made private, 0700, when missing).
    var sshClient: SSHClient {
        let folder = runtimeFolder.map { "\($0)/concord-ssh" } ?? "/tmp/concord-ssh-\(getuid())"
        return SSHClient(home: home, identityFile: sshKey, controlFolder: folder)
    }

    /// The key files ssh may offer from `~/.ssh` or `CONCORD_SSH_KEY` that it cannot use without
    /// a person (a passphrase), each with the reason: what a refusal names as skipped.
    var unusableSSHKeys: [String] {
        let files = sshKey.map { [$0] } ?? Self.defaultKeyNames.map { "\(home)/.ssh/\($0)" }.filter { FileManager.default.fileExists(atPath: $0) }
        return files.compactMap { file in SSHKeyFile.problem(at: file).map { "\(file) (\($0))" } }
    }

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
