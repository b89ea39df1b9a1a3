internal import FoundationEssentials

/// Where an ssh URL leads, as OpenSSH's client is asked for it: the host (a name of
/// `~/.ssh/config` or a real one), the port and user when the URL names them (else the
/// configuration's), and the repository's path on the server.
///
/// Reads `ssh://[user@]host[:port]/path` (also `ssh+git://`, `git+ssh://`, an IPv6 host in
/// brackets, `/~user/path` for a path below a home folder) and the scp-like `[user@]host:path`.
struct SSHDestination: Equatable {
    var host: String
    var port: Int?
    var user: String?
    /// The repository's path, percent-decoded, as git sends it to the server.
    var path: String

    /// The destination `url` names; nil when it is no ssh URL, or names a host or user that
    /// ssh would read as an option (starting with `-`).
    init?(url: String) {
        var user: Substring?
        if let separator = url.firstRange(of: "://") {
            let scheme = url[..<separator.lowerBound].lowercased()
            guard ["ssh", "ssh+git", "git+ssh"].contains(scheme) else { return nil }
            let rest = url[separator.upperBound...]
            let slash = rest.firstIndex(of: "/") ?? rest.endIndex
            var authority = rest[..<slash]
            var path = Substring(rest[slash...])
            if let at = authority.lastIndex(of: "@") {
                user = authority[..<at]
                authority = authority[authority.index(after: at)...]
            }
            if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
                host = String(authority[authority.index(after: authority.startIndex)..<close])
                let after = authority[authority.index(after: close)...]
                port = after.hasPrefix(":") ? Int(after.dropFirst()) : nil
            } else if let colon = authority.lastIndex(of: ":") {
                host = String(authority[..<colon])
                port = Int(authority[authority.index(after: colon)...])
            } else {
                host = String(authority)
            }
            if path.hasPrefix("/~") { path = path.dropFirst() }
            self.path = Self.decode(path)
        } else {
            var rest = Substring(url)
            if let at = rest.firstIndex(of: "@"), !rest[..<at].contains("/") {
                user = rest[..<at]
                rest = rest[rest.index(after: at)...]
            }
            guard let colon = rest.firstIndex(of: ":"), colon != rest.startIndex, !rest[..<colon].contains("/") else { return nil }
            host = String(rest[..<colon])
            path = String(rest[rest.index(after: colon)...])
        }
        self.user = user.map { Self.decode($0) }
        guard !host.isEmpty, !host.hasPrefix("-"), !(self.user?.hasPrefix("-") ?? false), !path.isEmpty else { return nil }
    }

    /// The command run on the server for `service`, its path quoted for the server's shell as
    /// git quotes it: `git-upload-pack '/srv/a b.git'`.
    func command(for service: String) -> String {
        "\(service) '" + path.replacing("'", with: "'\\''") + "'"
    }

    /// `host:port` as messages name the other side (port 22 when the URL names none).
    var peer: String {
        let port = port ?? 22
        return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// How OpenSSH's known_hosts names the server: `host` on port 22, else `[host]:port`.
    var knownHostsName: String {
        guard let port, port != 22 else { return host }
        return "[\(host)]:\(port)"
    }

    private static func decode(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var rest = Array(text.utf8)[...]
        while let byte = rest.popFirst() {
            if byte == UInt8(ascii: "%"), rest.count >= 2, let value = UInt8(String(decoding: rest.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(value)
                rest = rest.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
