internal import FoundationEssentials

/// What can be told of an ssh private key file without its passphrase: whether OpenSSH's
/// client, which never prompts (`BatchMode`), can use it. A refusal then names the keys it
/// skipped for a passphrase, which ssh itself passes over in silence.
enum SSHKeyFile {
    /// Why the private key file at `path` cannot be offered; nil when it can.
    static func problem(at path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            return "cannot be read"
        }
        if text.contains("ENCRYPTED") { return "protected by a passphrase: load it into ssh-agent" }
        let begin = "-----BEGIN OPENSSH PRIVATE KEY-----", end = "-----END OPENSSH PRIVATE KEY-----"
        guard let start = text.firstRange(of: begin), let stop = text.firstRange(of: end) else {
            return text.contains("PRIVATE KEY-----") ? nil : "not a private key"
        }
        let body = text[start.upperBound..<stop.lowerBound].filter { !$0.isWhitespace }
        guard let decoded = Data(base64Encoded: String(body)).map(Array.init) else { return "not a private key" }
        // openssh-key-v1 NUL, then the cipher's name as an ssh string: "none" when not encrypted.
        let magic = Array("openssh-key-v1\0".utf8)
        guard decoded.starts(with: magic), decoded.count >= magic.count + 4 else { return "not a private key" }
        return leadingString(decoded[magic.count...]) == "none" ? nil : "protected by a passphrase: load it into ssh-agent"
    }

    /// The string an ssh wire-form buffer starts with (a 4-byte big-endian length, then the
    /// bytes); empty when there is none.
    private static func leadingString(_ bytes: ArraySlice<UInt8>) -> String {
        let bytes = Array(bytes)
        guard bytes.count >= 4 else { return "" }
        let length = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        guard length > 0, length <= bytes.count - 4 else { return "" }
        return String(decoding: bytes[4..<(4 + length)], as: UTF8.self)
    }
}
