internal import Foundation
internal import GitFormat

/// The ssh host keys a user trusts, as OpenSSH's known_hosts files list them.
///
/// Reads what OpenSSH writes and reads: comma-separated host patterns (`*`, `?`, `!` negation),
/// `[host]:port` names for ports other than 22, hashed names (`|1|salt|hash`) and the
/// `@revoked` marker. `@cert-authority` lines are skipped (host certificates are not
/// supported), and so are lines that cannot be read. Like OpenSSH, a server on a port other
/// than 22 is known only by its `[host]:port` name.
public struct KnownHosts: Sendable {
    /// One host key line.
    public struct Entry: Sendable, Equatable {
        /// The host names a line applies to.
        public enum Names: Sendable, Equatable {
            /// Patterns, each possibly negated with `!`.
            case patterns([String])
            /// A hashed name: HMAC-SHA-1 of the name under the salt.
            case hashed(salt: [UInt8], hash: [UInt8])
        }

        /// The names the key belongs to.
        public var names: Names
        /// True for a `@revoked` line: this key must never be accepted.
        public var isRevoked: Bool
        /// The key's type as written (`ssh-ed25519`, `ecdsa-sha2-nistp256`, `ssh-rsa`, …).
        public var keyType: String
        /// The key in ssh's wire form (the base64 field, decoded).
        public var key: [UInt8]
        /// The file the line is in.
        public var file: String
        /// The line's number, from 1.
        public var line: Int
    }

    /// The files read, in order; the first is where a user adds hosts.
    public let files: [String]
    /// Every line understood, in file order.
    public let entries: [Entry]

    /// Reads `files`; a file that does not exist or cannot be read adds nothing.
    public init(files: [String]) {
        self.files = files
        entries = files.flatMap { file in
            (try? String(contentsOfFile: file, encoding: .utf8)).map { KnownHosts.parse($0, file: file) } ?? []
        }
    }

    /// Reads the text of one known_hosts file.
    public init(text: String, file: String) {
        files = [file]
        entries = KnownHosts.parse(text, file: file)
    }

    /// The user's files and the system's, where OpenSSH looks: `~/.ssh/known_hosts`,
    /// `~/.ssh/known_hosts2`, `/etc/ssh/ssh_known_hosts`, `/etc/ssh/ssh_known_hosts2`.
    public static func standardFiles(home: String) -> [String] {
        ["\(home)/.ssh/known_hosts", "\(home)/.ssh/known_hosts2", "/etc/ssh/ssh_known_hosts", "/etc/ssh/ssh_known_hosts2"]
    }

    /// The name a host is listed under: `host` on port 22, else `[host]:port`; lowercase.
    public static func name(host: String, port: Int) -> String {
        let lower = host.lowercased()
        return port == 22 ? lower : "[\(lower)]:\(port)"
    }

    /// What the files say about `key`, presented by the server at `host` and `port`.
    public func verdict(forKey key: [UInt8], host: String, port: Int) -> HostKeyVerdict {
        let name = Self.name(host: host, port: port)
        let listed = entries.filter { $0.matches(name) }
        if let revoked = listed.first(where: { $0.isRevoked && $0.key == key }) {
            return .revoked(file: revoked.file, line: revoked.line)
        }
        let trusted = listed.filter { !$0.isRevoked }
        if trusted.contains(where: { $0.key == key }) { return .trusted }
        let type = Self.keyType(of: key)
        if let other = trusted.first(where: { $0.keyType == type }) {
            return .changed(file: other.file, line: other.line)
        }
        var types: [String] = []
        for entry in trusted where !types.contains(entry.keyType) { types.append(entry.keyType) }
        return .unknown(knownTypes: types)
    }

    /// The type named at the start of a key in ssh's wire form (`ssh-ed25519`, …); empty when unreadable.
    public static func keyType(of key: [UInt8]) -> String {
        leadingString(key[...])
    }

    /// The string an ssh wire-form buffer starts with (a 4-byte big-endian length, then the
    /// bytes); empty when there is none.
    static func leadingString(_ bytes: ArraySlice<UInt8>) -> String {
        let bytes = Array(bytes)
        guard bytes.count >= 4 else { return "" }
        let length = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        guard length > 0, length <= bytes.count - 4 else { return "" }
        return String(decoding: bytes[4..<(4 + length)], as: UTF8.self)
    }

    private static func parse(_ text: String, file: String) -> [Entry] {
        var entries: [Entry] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            guard let first = fields.first, !first.hasPrefix("#") else { continue }
            var revoked = false
            if first.hasPrefix("@") {
                guard first == "@revoked" else { continue }
                revoked = true
                fields.removeFirst()
            }
            guard fields.count >= 3, let key = Data(base64Encoded: fields[2]).map(Array.init), !key.isEmpty else { continue }
            guard let names = parseNames(fields[0]) else { continue }
            entries.append(Entry(names: names, isRevoked: revoked, keyType: fields[1], key: key, file: file, line: index + 1))
        }
        return entries
    }

    private static func parseNames(_ field: String) -> Entry.Names? {
        guard field.hasPrefix("|1|") else {
            return .patterns(field.lowercased().split(separator: ",").map(String.init))
        }
        let parts = field.dropFirst(3).split(separator: "|", omittingEmptySubsequences: false)
        guard parts.count == 2, let salt = Data(base64Encoded: String(parts[0])), let hash = Data(base64Encoded: String(parts[1])) else {
            return nil
        }
        return .hashed(salt: Array(salt), hash: Array(hash))
    }
}

/// What the known_hosts files say about the key a server presented.
public enum HostKeyVerdict: Sendable, Equatable {
    /// The key is listed for this host.
    case trusted
    /// The host is not listed with a key of this type (`knownTypes`: the types it is listed with).
    case unknown(knownTypes: [String])
    /// The host is listed with another key of the same type: the key changed, or someone is
    /// impersonating the host.
    case changed(file: String, line: Int)
    /// The key is marked `@revoked`.
    case revoked(file: String, line: Int)
}

extension KnownHosts.Entry {
    /// True when the line names `name` (a name as ``KnownHosts/name(host:port:)`` makes it).
    func matches(_ name: String) -> Bool {
        switch names {
        case let .hashed(salt, hash):
            return SHA1.hmac(key: salt, message: Array(name.utf8)) == hash
        case let .patterns(patterns):
            var positive = false
            for pattern in patterns {
                if pattern.hasPrefix("!") {
                    if Self.wildcard(Array(pattern.dropFirst().utf8)[...], matches: Array(name.utf8)[...]) { return false }
                } else if Self.wildcard(Array(pattern.utf8)[...], matches: Array(name.utf8)[...]) {
                    positive = true
                }
            }
            return positive
        }
    }

    /// OpenSSH's pattern match: `*` any run of characters, `?` one character.
    private static func wildcard(_ pattern: ArraySlice<UInt8>, matches text: ArraySlice<UInt8>) -> Bool {
        guard let first = pattern.first else { return text.isEmpty }
        if first == UInt8(ascii: "*") {
            var rest = text
            while true {
                if wildcard(pattern.dropFirst(), matches: rest) { return true }
                guard !rest.isEmpty else { return false }
                rest = rest.dropFirst()
            }
        }
        guard let character = text.first, first == UInt8(ascii: "?") || first == character else { return false }
        return wildcard(pattern.dropFirst(), matches: text.dropFirst())
    }
}
