internal import FoundationEssentials

/// A cloud's URL taken apart: what `.git/config` may hold, and the secrets that go to the
/// credentials store instead (a password, a token given as the user name, a query).
///
/// Understands a local path or `file://` URL, `ssh://[user@]host[:port]/path`, the scp-like
/// `[user@]host:path`, `https://` and `http://`, and `git://`.
struct CloudAddress: Equatable {
    /// How the cloud is reached.
    enum Transport: Equatable {
        /// A folder on this machine.
        case local(path: String)
        /// ssh, in either form.
        case ssh
        /// https or http.
        case http
        /// git's own protocol (`git://`), or a scheme left to libgit2.
        case other
    }

    /// How the cloud is reached.
    var transport: Transport = .other
    /// The URL without secrets: what `.git/config` holds and messages print.
    var url = ""
    /// The host of a network URL, as written.
    var host = ""
    /// The port of a network URL; nil when it names none.
    var port: Int?
    /// The user name: kept in `url` for ssh (it names an account); moved out for the other
    /// network URLs, where it may be a token.
    var username: String?
    /// A password given in the URL (percent-decoded).
    var password: String?
    /// The query of a network URL, without its `?` (`token=…`).
    var query: String?

    /// Takes `text` apart; anything that is neither a URL nor scp-like is a local path.
    init(_ text: String) {
        if text.hasPrefix("file://") {
            transport = .local(path: String(text.dropFirst("file://".count)))
            url = text
            return
        }
        if let separator = text.firstRange(of: "://") {
            let scheme = text[..<separator.lowerBound].lowercased()
            transport =
                switch scheme {
                case "ssh", "ssh+git", "git+ssh": .ssh
                case "https", "http": .http
                default: .other
                }
            var rest = Substring(text[separator.upperBound...])
            let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
            var authority = rest[..<authorityEnd]
            rest = rest[authorityEnd...]
            if let at = authority.lastIndex(of: "@") {
                splitUserInfo(authority[..<at])
                authority = authority[authority.index(after: at)...]
            }
            splitHostAndPort(authority)
            if let mark = rest.firstIndex(of: "?") {
                query = String(rest[rest.index(after: mark)...])
                rest = rest[..<mark]
            }
            var clean = "\(text[..<separator.upperBound])"
            if transport == .ssh, let username { clean += "\(Self.encode(username))@" }
            clean += String(authority) + rest
            url = clean
            return
        }
        // scp-like: [user[:password]@]host:path, with no '/' before the host's colon.
        var rest = Substring(text)
        var user: Substring?
        if let at = rest.firstIndex(of: "@"), !rest[..<at].contains("/") {
            user = rest[..<at]
            rest = rest[rest.index(after: at)...]
        }
        guard let colon = rest.firstIndex(of: ":"), !rest[..<colon].contains("/"), colon != rest.startIndex else {
            transport = .local(path: text)
            url = text
            return
        }
        transport = .ssh
        host = String(rest[..<colon])
        if let user { splitUserInfo(user) }
        url = (username.map { "\($0)@" } ?? "") + rest
    }

    /// The secrets the URL held, as they go to the store; nil when it held none.
    var secrets: CloudSecrets? {
        let user = transport == .ssh ? nil : username
        guard user != nil || password != nil || query != nil else { return nil }
        return CloudSecrets(url: url, username: username, password: password, query: query)
    }

    /// True for a cloud reached through a network transport.
    var isNetwork: Bool {
        if case .local = transport { return false }
        return true
    }

    private mutating func splitUserInfo(_ info: Substring) {
        if let colon = info.firstIndex(of: ":") {
            username = Self.decode(info[..<colon])
            password = Self.decode(info[info.index(after: colon)...])
        } else {
            username = Self.decode(info)
        }
    }

    private mutating func splitHostAndPort(_ authority: Substring) {
        var hostPart = authority
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            hostPart = authority[authority.index(after: close)...]
            if hostPart.hasPrefix(":") { port = Int(hostPart.dropFirst()) }
            return
        }
        if let colon = hostPart.lastIndex(of: ":") {
            port = Int(hostPart[hostPart.index(after: colon)...])
            hostPart = hostPart[..<colon]
        }
        host = String(hostPart)
    }

    /// Percent-decodes a URL's user name or password.
    static func decode(_ text: Substring) -> String {
        String(text).removingPercentEncodingOrSelf
    }

    /// Percent-encodes what a user name may not hold as is in a URL.
    static func encode(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            let character = Character(Unicode.Scalar(byte))
            if byte < 0x80, character.isLetter || character.isNumber || "-._~".contains(character) {
                result.append(character)
            } else {
                result += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return result
    }
}

extension String {
    fileprivate var removingPercentEncodingOrSelf: String {
        var bytes: [UInt8] = []
        var iterator = Array(utf8)[...]
        while let byte = iterator.popFirst() {
            if byte == UInt8(ascii: "%"), iterator.count >= 2,
                let value = UInt8(String(decoding: iterator.prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                iterator = iterator.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(bytes: bytes, encoding: .utf8) ?? self
    }

    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
