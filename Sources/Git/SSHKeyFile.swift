internal import Foundation
#if canImport(Glibc)
internal import Glibc
#endif

/// Checks made before offering an ssh credential, so that one unusable key does not end the
/// whole connection: libssh2 fails outright (not as a refusal) on a key it cannot decrypt or
/// an agent it cannot reach.
enum SSHKeyFile {
    /// Why the private key file at `path` cannot be offered; nil when it can.
    static func problem(at path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            return "cannot be read"
        }
        if text.contains("ENCRYPTED") { return "protected by a passphrase: load it into ssh-agent" }
        let begin = "-----BEGIN OPENSSH PRIVATE KEY-----", end = "-----END OPENSSH PRIVATE KEY-----"
        guard let start = text.range(of: begin), let stop = text.range(of: end) else {
            return text.contains("PRIVATE KEY-----") ? nil : "not a private key"
        }
        let body = text[start.upperBound..<stop.lowerBound].filter { !$0.isWhitespace }
        guard let decoded = Data(base64Encoded: String(body)).map(Array.init) else { return "not a private key" }
        // openssh-key-v1 NUL, then the cipher's name as an ssh string: "none" when not encrypted.
        let magic = Array("openssh-key-v1\0".utf8)
        guard decoded.starts(with: magic), decoded.count >= magic.count + 4 else { return "not a private key" }
        let cipher = KnownHosts.leadingString(decoded[magic.count...])
        return cipher == "none" ? nil : "protected by a passphrase: load it into ssh-agent"
    }

    /// True when something accepts connections on the Unix socket at `path`.
    static func agentAnswers(at path: String) -> Bool {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: bytes)
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        } == 0
    }
}
