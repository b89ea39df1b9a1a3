internal import CGit2
internal import Foundation
internal import GitFormat
internal import GitStore

extension Repository {
    /// Moves `reference` on a network remote (ssh, https, http or `git://`) from `expected` to
    /// `target`, sending the objects of the commits reachable from `target` and not from
    /// `expected` as one pack built like ``copyObjects(to:from:hiding:)``: each commit's folders
    /// and files that differ from its parents'. libgit2's push instead builds its pack by reading
    /// every folder and file of the remote's commit (about 0.2 s at 100,000 documents) and
    /// searching deltas among them.
    ///
    /// A compare-and-swap: the remote must still hold `expected` (nil: no such reference), both
    /// when it advertises its references and when it updates. libgit2's transports do the
    /// connecting, with `access` (credentials, host key check), `url` and `limits` as in
    /// ``fetch(remote:refspecs:url:access:limits:progress:)``; this side speaks receive-pack
    /// over them. The pack is built before connecting: the connection never waits on this
    /// side's work.
    /// - Returns: ``PushOutcome/cloudMoved`` when the remote's reference was not `expected`
    ///   (advertised, or found when it updated), and the credential the remote accepted (nil
    ///   when it asked for none).
    /// - Throws: ``GitError``: the reasons a fetch gives for a refused or failed connection, and
    ///   the remote's own refusal.
    func upload(
        _ target: OID, to reference: String, expected: OID?, remote name: String, url: String? = nil, access: RemoteAccess? = nil,
        limits: NetworkLimits = NetworkLimits()
    ) throws -> (outcome: PushOutcome, accepted: Credential?) {
        let remote = try lookupRemote(name, url: url)
        defer { git_remote_free(remote) }
        guard let address = git_remote_url(remote).map({ String(cString: $0) }), let kind = Subtransport.Kind(url: address) else {
            throw GitError(message: "an upload needs an ssh, https, http or git:// remote", function: "git_transport_smart")
        }
        let pack = try readingStore { try store.packOfChanges(from: [target], hiding: [expected].compactMap { $0 }, reusing: true).bytes }
        let capture = Subtransport(kind)
        let operation = NetworkOperation(limits: limits)
        let callbacks = RemoteCallbacks(access: access, operation: operation)
        return try withExtendedLifetime((capture, callbacks)) {
            try operation.run {
                var definition = git_smart_subtransport_definition(
                    callback: subtransportCallback, rpc: kind == .http ? 1 : 0, param: Unmanaged.passUnretained(capture).toOpaque())
                var transport: UnsafeMutablePointer<git_transport>?
                try check("git_transport_smart", git_transport_smart(&transport, remote, &definition))
                guard let transport, let subtransport = capture.subtransport else {
                    throw GitError(message: "libgit2 made no transport for \(address)", function: "git_transport_smart")
                }
                defer {
                    _ = transport.pointee.close(transport)
                    transport.pointee.free(transport)
                }
                var options = git_remote_connect_options()
                try check("git_remote_connect_options_init", git_remote_connect_options_init(&options, UInt32(GIT_REMOTE_CONNECT_OPTIONS_VERSION)))
                options.follow_redirects = GIT_REMOTE_REDIRECT_NONE
                callbacks.install(in: &options.callbacks)
                try check("git_transport connect", transport.pointee.connect(transport, address, Int32(GIT_DIRECTION_PUSH.rawValue), &options))
                let current = try advertised(reference, by: transport)
                guard current == expected else { return (.cloudMoved, callbacks.lastOffered) }
                var stream: UnsafeMutablePointer<git_smart_subtransport_stream>?
                try check(
                    "git_smart_subtransport action",
                    subtransport.pointee.action(&stream, subtransport, address, GIT_SERVICE_RECEIVEPACK))
                guard let stream else { throw GitError(message: "libgit2 opened no stream to \(address)", function: "git_smart_subtransport action") }
                // A stateless (http) stream is this caller's; a stateful one stays the transport's.
                defer { if kind == .http { stream.pointee.free(stream) } }
                let zero = String(repeating: "0", count: 40)
                var request = PacketLine.encode("\(expected?.hex ?? zero) \(target.hex) \(reference)\0report-status agent=concord\n")
                request += PacketLine.flush
                try write(request, to: stream)
                try pack.withUnsafeBytes { bytes in
                    try check(
                        "git_smart_subtransport_stream write",
                        stream.pointee.write(stream, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count))
                }
                let outcome = try checkReport(PacketLine.readUntilFlush(from: stream), for: reference)
                return (outcome, callbacks.lastOffered)
            }
        }
    }

    /// What the connected remote advertises for `reference`; nil when it has no such reference.
    private func advertised(_ reference: String, by transport: UnsafeMutablePointer<git_transport>) throws -> OID? {
        var heads: UnsafeMutablePointer<UnsafePointer<git_remote_head>?>?
        var count = 0
        try check("git_transport ls", transport.pointee.ls(&heads, &count, transport))
        for index in 0..<count {
            guard let head = heads?[index] else { continue }
            if String(cString: head.pointee.name) == reference { return OID(head.pointee.oid) }
        }
        return nil
    }

    private func write(_ bytes: [UInt8], to stream: UnsafeMutablePointer<git_smart_subtransport_stream>) throws {
        try bytes.withUnsafeBufferPointer { buffer in
            try buffer.withMemoryRebound(to: CChar.self) { characters in
                try check("git_smart_subtransport_stream write", stream.pointee.write(stream, characters.baseAddress, characters.count))
            }
        }
    }

    /// Reads receive-pack's report (`unpack ok`, then `ok REF` or `ng REF REASON`).
    /// - Returns: ``PushOutcome/cloudMoved`` when the remote refused the update because the
    ///   reference had moved (or was being moved), else ``PushOutcome/pushed``.
    /// - Throws: ``GitError`` for any other refusal.
    private func checkReport(_ lines: [String], for reference: String) throws -> PushOutcome {
        guard let unpack = lines.first, unpack.hasPrefix("unpack ") else {
            throw GitError(message: "the remote sent no report: \(lines.joined(separator: "; "))", function: "receive-pack")
        }
        guard unpack == "unpack ok" else {
            throw GitError(message: "the remote could not store the pack: \(unpack.dropFirst("unpack ".count))", function: "receive-pack")
        }
        if lines.contains("ok \(reference)") { return .pushed }
        let refusal = lines.first { $0.hasPrefix("ng \(reference) ") }.map { String($0.dropFirst("ng \(reference) ".count)) }
        let status = refusal ?? "no status for the reference"
        if ["fetch first", "non-fast-forward", "stale", "failed to update ref", "failed to lock"].contains(where: { status.contains($0) }) {
            return .cloudMoved
        }
        throw GitError(errorClass: .reference, message: "the remote refused \(reference): \(status)", function: "receive-pack")
    }
}

/// The subtransport libgit2 makes for a smart transport, kept so that a push can use its
/// stream directly.
private final class Subtransport {
    enum Kind: Equatable {
        case ssh, http, git

        /// The kind a URL names; nil for a local path or `file://`.
        init?(url: String) {
            let lower = url.lowercased()
            if lower.hasPrefix("https://") || lower.hasPrefix("http://") {
                self = .http
            } else if lower.hasPrefix("git://") {
                self = .git
            } else if ["ssh://", "ssh+git://", "git+ssh://"].contains(where: lower.hasPrefix) {
                self = .ssh
            } else if let colon = url.firstIndex(of: ":"), !url[..<colon].contains("/"), !url.contains("://") {
                self = .ssh
            } else {
                return nil
            }
        }
    }

    let kind: Kind
    var subtransport: UnsafeMutablePointer<git_smart_subtransport>?

    init(_ kind: Kind) { self.kind = kind }
}

private let subtransportCallback: git_smart_subtransport_cb = { out, owner, param in
    guard let out, let param else { return -1 }
    let capture = Unmanaged<Subtransport>.fromOpaque(param).takeUnretainedValue()
    let result =
        switch capture.kind {
        case .ssh: git_smart_subtransport_ssh(out, owner, nil)
        case .http: git_smart_subtransport_http(out, owner, nil)
        case .git: git_smart_subtransport_git(out, owner, nil)
        }
    if result == 0 { capture.subtransport = out.pointee }
    return result
}

/// git's pkt-line framing: four hexadecimal digits of length (their own four included), then
/// the data; `0000` is a flush.
enum PacketLine {
    static let flush = Array("0000".utf8)

    static func encode(_ text: String) -> [UInt8] {
        let data = Array(text.utf8)
        let length = String(data.count + 4, radix: 16)
        return Array((String(repeating: "0", count: 4 - length.count) + length).utf8) + data
    }

    /// Reads packets until a flush; returns their texts without the trailing newline.
    static func readUntilFlush(from stream: UnsafeMutablePointer<git_smart_subtransport_stream>) throws -> [String] {
        var pending: [UInt8] = []
        var lines: [String] = []
        var chunk = [CChar](repeating: 0, count: 65536)
        while true {
            while pending.count >= 4 {
                guard let length = Int(String(decoding: pending[0..<4], as: UTF8.self), radix: 16) else {
                    throw GitError(message: "the remote sent a malformed packet", function: "receive-pack")
                }
                if length == 0 { return lines }
                guard length >= 4 else { throw GitError(message: "the remote sent a malformed packet", function: "receive-pack") }
                guard pending.count >= length else { break }
                var line = String(decoding: pending[4..<length], as: UTF8.self)
                if line.hasSuffix("\n") { line.removeLast() }
                lines.append(line)
                pending.removeFirst(length)
            }
            var read = 0
            try check("git_smart_subtransport_stream read", stream.pointee.read(stream, &chunk, chunk.count, &read))
            guard read > 0 else {
                throw GitError(message: "the remote closed the connection before its report", function: "receive-pack")
            }
            pending += chunk[0..<read].map { UInt8(bitPattern: $0) }
        }
    }
}
