import Foundation
import Git
import GitFormat
import Testing

/// How a known_hosts file decides on the key a server presents (the ssh tests check the same
/// against a real sshd; these pin the file format's corners).
@Suite struct KnownHostsTests {
    static let first = "AAAAC3NzaC1lZDI1NTE5AAAAIPQRZA5xGiN5NY4ydRF5pkWWOqtG65MQEbw9pTOMe/5B"
    static let second = "AAAAC3NzaC1lZDI1NTE5AAAAIMSmUWJeGZG2OmSlwc81F8XKLygjHc8Jn9w7n6NNTgln"
    static let ecdsa = "AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBMal7j3ze5w8UmStOSvn2fc5bXrdG4X+tD1wDON9NdcvZqJJTnUEGItPsYc8TDu6iswAgJISmLLkvMBxkkyapOs="

    private func key(_ base64: String) -> [UInt8] { Array(Data(base64Encoded: base64)!) }

    private func verdict(_ text: String, _ key: String, host: String = "example.com", port: Int = 22) -> HostKeyVerdict {
        KnownHosts(text: text, file: "known_hosts").verdict(forKey: self.key(key), host: host, port: port)
    }

    @Test func aListedKeyIsTrustedUnderItsHostAndPort() {
        #expect(verdict("example.com ssh-ed25519 \(Self.first)\n", Self.first) == .trusted)
        #expect(verdict("EXAMPLE.com ssh-ed25519 \(Self.first) a comment\n", Self.first, host: "Example.COM") == .trusted)
        #expect(verdict("[example.com]:2222 ssh-ed25519 \(Self.first)\n", Self.first, port: 2222) == .trusted)
        #expect(verdict("other.org,example.com ssh-ed25519 \(Self.first)\n", Self.first) == .trusted)
    }

    @Test func aPortIsPartOfTheName() {
        #expect(verdict("example.com ssh-ed25519 \(Self.first)\n", Self.first, port: 2222) == .unknown(knownTypes: []))
        #expect(verdict("[example.com]:2222 ssh-ed25519 \(Self.first)\n", Self.first) == .unknown(knownTypes: []))
        #expect(verdict("[example.com]:2222 ssh-ed25519 \(Self.first)\n", Self.first, port: 2223) == .unknown(knownTypes: []))
    }

    @Test func hashedNamesMatchTheirHostOnly() {
        let withPort = "|1|AAECAwQFBgcICQoLDA0ODxAREhM=|Wgcx+Fm+LmaWwC7rQ80eIf2uHe0="
        let plain = "|1|AAECAwQFBgcICQoLDA0ODxAREhM=|nnUK16ANsXd3hL31YfAkGOluSjU="
        #expect(verdict("\(withPort) ssh-ed25519 \(Self.first)\n", Self.first, port: 2222) == .trusted)
        #expect(verdict("\(plain) ssh-ed25519 \(Self.first)\n", Self.first) == .trusted)
        #expect(verdict("\(plain) ssh-ed25519 \(Self.first)\n", Self.first, host: "example.org") == .unknown(knownTypes: []))
    }

    @Test func patternsAndNegations() {
        #expect(verdict("*.example.com ssh-ed25519 \(Self.first)\n", Self.first, host: "git.example.com") == .trusted)
        #expect(verdict("git?.example.com ssh-ed25519 \(Self.first)\n", Self.first, host: "git1.example.com") == .trusted)
        #expect(
            verdict("*.example.com,!evil.example.com ssh-ed25519 \(Self.first)\n", Self.first, host: "evil.example.com")
                == .unknown(knownTypes: []))
    }

    @Test func anotherKeyOfTheSameTypeIsAChangeAndOfAnotherTypeIsUnknown() {
        let text = "# comment\n\nexample.com ssh-ed25519 \(Self.first)\n"
        #expect(verdict(text, Self.second) == .changed(file: "known_hosts", line: 3))
        #expect(verdict(text, Self.ecdsa) == .unknown(knownTypes: ["ssh-ed25519"]))
        #expect(verdict(text + "example.com ssh-ed25519 \(Self.second)\n", Self.second) == .trusted)
    }

    @Test func revokedKeysAreRefusedAndUnreadableLinesSkipped() {
        let text = """
            @cert-authority *.example.com ssh-ed25519 \(Self.second)
            example.com ssh-ed25519 not-base64!
            @revoked example.com ssh-ed25519 \(Self.first)
            example.com ssh-ed25519 \(Self.first)
            """
        #expect(verdict(text, Self.first) == .revoked(file: "known_hosts", line: 3))
        #expect(verdict(text, Self.second) == .changed(file: "known_hosts", line: 4))
    }

    @Test func filesThatDoNotExistAddNothing() {
        let hosts = KnownHosts(files: ["/nonexistent/known_hosts"])
        #expect(hosts.entries.isEmpty)
        #expect(hosts.verdict(forKey: key(Self.first), host: "example.com", port: 22) == .unknown(knownTypes: []))
    }
}
