internal import FoundationEssentials
internal import Glibc
internal import GitFormat
internal import GitStore

/// How OpenSSH's own client (`ssh`) is run for an ssh remote: the stream of each fetch, push
/// or peek is the standard input and output of `ssh … host "git-upload-pack '/path'"`
/// (``SSHProcess``), so `~/.ssh/config` (host aliases, `Port`, `User`, `IdentityFile`,
/// `ProxyJump`), the agent and known_hosts work as they do for git.
///
/// Never a prompt (`BatchMode`), an unknown or changed host key refused
/// (`StrictHostKeyChecking=yes`), and one connection kept and shared by the operations that
/// follow within ``keepConnection`` seconds (`ControlMaster`, `ControlPersist`), its socket in
/// ``controlFolder``.
public struct SSHClient: Sendable, Equatable {
    /// The folder whose `.ssh` holds the configuration, known hosts and default keys (`HOME`).
    /// OpenSSH reads the account's home folder whatever `HOME` says: when this is another
    /// folder, ssh is pointed at its files (`-F`, `UserKnownHostsFile`, `IdentityFile`).
    public var home: String
    /// The one key file to offer (with the agent's keys) instead of the default ones; nil: the
    /// configuration's and the defaults.
    public var identityFile: String?
    /// The folder of this user's, mode 0700, that holds the sockets of kept connections (made
    /// when missing); nil, or a folder that is not private, keeps no connection.
    public var controlFolder: String?
    /// How long a kept connection waits for its next use, in seconds.
    public var keepConnection: Int

    /// The time a connection is kept when nothing says otherwise: a minute, longer than a sync
    /// takes and than the agent's peeks are apart.
    public static let defaultKeepConnection = 60

    /// Runs ssh with the files of `home`, offering `identityFile` if given, keeping connections
    /// in `controlFolder`.
    public init(home: String, identityFile: String? = nil, controlFolder: String?, keepConnection: Int = defaultKeepConnection) {
        self.home = home
        self.identityFile = identityFile
        self.controlFolder = controlFolder
        self.keepConnection = keepConnection
    }

    /// The default key files OpenSSH tries, in its order.
    static let defaultKeyNames = ["id_rsa", "id_ecdsa", "id_ecdsa_sk", "id_ed25519", "id_ed25519_sk", "id_xmss", "id_dsa"]

    /// True when ssh must be told where the files are (``home`` is not the account's).
    var relocated: Bool { URL(fileURLWithPath: home).standardized.path != ProcessVariable.accountHome.map { URL(fileURLWithPath: $0).standardized.path } }

    /// The known_hosts file a user adds servers to.
    var knownHostsFile: String { "\(home)/.ssh/known_hosts" }

    /// The arguments of `ssh` (without the program) that run `command` at `destination`, a
    /// connection time-out of `timeout` seconds.
    func arguments(for destination: SSHDestination, command: String, timeout: Double) -> [String] {
        var arguments = ["-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes", "-o", "ConnectTimeout=\(max(1, Int(timeout.rounded(.up))))"]
        if relocated {
            let config = "\(home)/.ssh/config"
            arguments += ["-F", FileManager.default.fileExists(atPath: config) ? config : "/dev/null"]
            arguments += ["-o", "UserKnownHostsFile=\(Self.quoted(knownHostsFile)) \(Self.quoted(knownHostsFile + "2"))"]
            if identityFile == nil {
                for name in Self.defaultKeyNames { arguments += ["-o", "IdentityFile=\(Self.quoted("\(home)/.ssh/\(name)"))"] }
            }
        }
        if let identityFile { arguments += ["-o", "IdentityFile=\(Self.quoted(identityFile))"] }
        if let controlPath = controlPath(for: destination) {
            arguments += ["-o", "ControlMaster=auto", "-o", "ControlPersist=\(keepConnection)", "-o", "ControlPath=\(Self.quoted(controlPath))"]
        } else {
            arguments += ["-o", "ControlMaster=no", "-o", "ControlPath=none"]
        }
        if let port = destination.port { arguments += ["-p", "\(port)"] }
        if let user = destination.user { arguments += ["-l", user] }
        return arguments + ["--", destination.host, command]
    }

    /// The socket of the kept connection to `destination`; nil when there is no private
    /// ``controlFolder``.
    ///
    /// Named by a hash of everything that decides which server is reached and how this side
    /// proves who it is and trusts the server: the destination, the files and key given, the
    /// agent, and the identity of the configuration and known_hosts files as they are now. An
    /// operation with other keys, or after known_hosts changed, opens a connection of its own
    /// (checked again) instead of using one made under other terms.
    func controlPath(for destination: SSHDestination) -> String? {
        guard let controlFolder, Self.isPrivateFolder(controlFolder) else { return nil }
        var terms = [destination.host, "\(destination.port ?? 0)", destination.user ?? "", home, identityFile ?? "", relocated ? "relocated" : ""]
        terms.append(ProcessVariable.value("SSH_AUTH_SOCK") ?? "")
        for file in ["config", "known_hosts", "known_hosts2"] {
            var status = stat()
            if stat("\(home)/.ssh/\(file)", &status) == 0 {
                terms.append("\(status.st_dev) \(status.st_ino) \(status.st_size) \(status.st_mtim.tv_sec).\(status.st_mtim.tv_nsec)")
            } else {
                terms.append("-")
            }
        }
        let digest = SHA1.digest(Array(terms.joined(separator: "\0").utf8))
        return "\(controlFolder)/" + digest.prefix(12).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// Makes `folder` (mode 0700) when missing; true when it is a folder (not a link) of this
    /// user's that no one else may enter.
    static func isPrivateFolder(_ folder: String) -> Bool {
        if mkdir(folder, 0o700) != 0 && errno != EEXIST { return false }
        var status = stat()
        guard lstat(folder, &status) == 0 else { return false }
        return status.st_mode & S_IFMT == S_IFDIR && status.st_uid == getuid() && status.st_mode & 0o077 == 0
    }

    /// A value for an `-o` option: in double quotes (ssh splits values at spaces), `%` doubled
    /// (ssh expands `%` tokens in file names).
    private static func quoted(_ path: String) -> String {
        "\"" + path.replacing("%", with: "%%") + "\""
    }
}
