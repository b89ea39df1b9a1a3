internal import CGit2
internal import FoundationEssentials
internal import GitStore

/// What an `ssh` run that failed said on its standard error, as one line and a libgit2 code:
/// a host key OpenSSH refused (unknown, changed, revoked) is `GIT_ECERTIFICATE` in the ssh
/// class (``GitError/isHostKey``), keys refused `GIT_EAUTH` (``GitError/isAuthentication``),
/// anything else a network error naming the cause.
struct SSHFailure {
    var code: Int32
    var errorClass: git_error_t
    var message: String
    /// The time-out ssh reported itself (`ConnectTimeout`, set to the operation's): what the
    /// network watch would have found a moment later.
    var timeout: NetworkOperation.Verdict?

    /// Reads `stderr` of a run that exited with `exitStatus` (255: ssh's own failure, else the
    /// server's git), reached as `destination` with `client`.
    init(stderr: String, exitStatus: Int32, destination: SSHDestination, client: SSHClient) {
        let lines = stderr.split(whereSeparator: \.isNewline).map { $0.trimmingSpaces() }.filter { !$0.isEmpty }
        func captures(_ pattern: String) -> [String]? {
            guard let expression = try? Regex(pattern) else { return nil }
            for line in lines {
                guard let match = line.firstMatch(of: expression) else { continue }
                return (1..<match.output.count).map { index in match.output[index].substring.map(String.init) ?? "" }
            }
            return nil
        }
        let file = client.knownHostsFile
        code = Int32(GIT_ECERTIFICATE.rawValue)
        errorClass = GIT_ERROR_SSH
        if let unknown = captures(#"^No (\S+) host key is known for (\S+) and you have requested strict checking"#) {
            let type = Self.keyType(unknown[0]), name = unknown[1]
            let (host, port) = Self.split(name)
            let portOption = port.map { "-p \($0) " } ?? ""
            message =
                "\(name) is not a known host: its \(type) key is not in \(file); "
                + "if that is the server's key, trust it with: ssh-keyscan \(portOption)-t \(type) \(host) >> \(file)"
        } else if let changed = captures(#"^Host key for (\S+) has changed and you have requested strict checking"#) {
            let name = changed[0]
            let offending = captures(#"^Offending (\S+) key in (.+):(\d+)$"#)
            let fingerprint = lines.first { $0.hasPrefix("SHA256:") }.map { String($0.dropLast($0.hasSuffix(".") ? 1 : 0)) } ?? "of unknown fingerprint"
            let type = offending.map { Self.keyType($0[0]) } ?? "host"
            let listed = offending.map { "\($0[1]) line \($0[2])" } ?? file
            message =
                "THE HOST KEY OF \(name) HAS CHANGED: it presents the \(type) key \(fingerprint), not the one in \(listed); "
                + "someone may be intercepting the connection. If the server's key really changed, remove the old one with: "
                + "ssh-keygen -R '\(name)' -f \(offending?[1] ?? file)"
        } else if let revoked = captures(#"^The (\S+) host key for (\S+) is marked as revoked"#) {
            message = "the \(Self.keyType(revoked[0])) key of \(revoked[1]) is marked @revoked in known_hosts"
        } else if lines.contains(where: { $0.hasPrefix("Host key verification failed") }) {
            message = "the host key of \(destination.knownHostsName) was refused: \(Self.summary(lines))"
        } else if lines.contains(where: { $0.contains("Permission denied (") }) {
            code = Int32(GIT_EAUTH.rawValue)
            message = "the server refused \(client.identityFile ?? "every key ssh offered")"
        } else {
            code = Int32(GIT_ERROR.rawValue)
            errorClass = GIT_ERROR_NET
            if let refused = captures(#"^ssh: connect to host (\S+) port (\d+): Connection timed out$"#) {
                timeout = .notConnected(peer: "\(refused[0].contains(":") ? "[\(refused[0])]" : refused[0]):\(refused[1])")
                message = "ssh: connect to host \(refused[0]) port \(refused[1]): Connection timed out"
            } else if lines.contains(where: { $0.contains("timed out during banner exchange") || $0.hasSuffix(" timed out") }) {
                timeout = .stalled(peer: destination.peer, received: 0)
                message = Self.summary(lines)
            } else if let refused = captures(#"^ssh: connect to host (\S+) port (\d+): (.+)$"#) {
                message = "failed to connect to \(refused[0].contains(":") ? "[\(refused[0])]" : refused[0]):\(refused[1]): \(refused[2])"
            } else if let unresolved = captures(#"^ssh: Could not resolve hostname ([^:]+): (.+)$"#) {
                message = "failed to resolve address for \(unresolved[0]): \(unresolved[1])"
            } else if exitStatus == 255 || lines.isEmpty {
                message = "ssh to \(destination.peer) failed (exit status \(exitStatus))" + (lines.isEmpty ? "" : ": \(Self.summary(lines))")
            } else {
                // ssh reached the server, whose command answered with a refusal of its own (a
                // shared host's "W any notes bob DENIED"): the server's words, in ssh's class.
                errorClass = GIT_ERROR_SSH
                message = "the server's git failed: \(Self.summary(lines))"
            }
        }
    }

    /// The key type as known_hosts and ssh-keyscan name it, from ssh's short name (`ED25519`).
    private static func keyType(_ name: String) -> String {
        switch name.uppercased() {
        case "ED25519": "ssh-ed25519"
        case "RSA": "ssh-rsa"
        case "DSA": "ssh-dss"
        default: name.lowercased()
        }
    }

    /// The host and port of a known_hosts name: `[host]:port`, or a host on port 22.
    private static func split(_ name: String) -> (host: String, port: String?) {
        guard name.hasPrefix("["), let close = name.firstIndex(of: "]") else { return (name, nil) }
        let host = String(name[name.index(after: name.startIndex)..<close])
        let rest = name[name.index(after: close)...]
        return (host, rest.hasPrefix(":") ? String(rest.dropFirst()) : nil)
    }

    /// The last two lines ssh wrote that say something (its banners of `@` left out), as one line.
    private static func summary(_ lines: [String]) -> String {
        lines.filter { !$0.hasPrefix("@") }.suffix(2).joined(separator: "; ")
    }
}
