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
    /// ``fetch(remote:refspecs:url:access:limits:progress:)``; this side reads the advertisement
    /// libgit2 received (``ReferenceAdvertisement``) and speaks receive-pack over them. The pack is built before connecting: the connection never waits on this
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
        let capture = Subtransport(kind, recordingAtMost: limits.answerLimit)
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
                let current = try capture.advertisement().id(of: reference)
                guard current == expected else { return (.cloudMoved, callbacks.lastOffered) }
                var stream: UnsafeMutablePointer<git_smart_subtransport_stream>?
                try check(
                    "git_smart_subtransport action",
                    subtransport.pointee.action(&stream, subtransport, address, GIT_SERVICE_RECEIVEPACK))
                guard let stream else { throw GitError(message: "libgit2 opened no stream to \(address)", function: "git_smart_subtransport action") }
                // A stateless (http) stream is this caller's; a stateful one stays the transport's.
                defer { if kind == .http { stream.pointee.free(stream) } }
                let request: [UInt8]
                do {
                    request = try ReceivePack.updateRequest(reference: reference, from: expected, to: target, capabilities: ["report-status", "agent=concord"])
                } catch {
                    throw GitError(errorClass: .reference, message: "cannot ask to move \(reference): \(error)", function: "receive-pack")
                }
                try write(request, to: stream)
                try pack.withUnsafeBytes { bytes in
                    try check(
                        "git_smart_subtransport_stream write",
                        stream.pointee.write(stream, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count))
                }
                let outcome = try checkReport(readReport(from: stream), for: reference)
                return (outcome, callbacks.lastOffered)
            }
        }
    }

    private func write(_ bytes: [UInt8], to stream: UnsafeMutablePointer<git_smart_subtransport_stream>) throws {
        try bytes.withUnsafeBufferPointer { buffer in
            try buffer.withMemoryRebound(to: CChar.self) { characters in
                try check("git_smart_subtransport_stream write", stream.pointee.write(stream, characters.baseAddress, characters.count))
            }
        }
    }

    /// Reads receive-pack's report from `stream`: its packets up to the flush that ends it.
    /// - Throws: ``GitError`` when the remote sent a malformed report or closed the connection
    ///   before its end.
    private func readReport(from stream: UnsafeMutablePointer<git_smart_subtransport_stream>) throws -> PushReport {
        var reader = PacketLineReader()
        var packets: [PacketLine] = []
        var chunk = [CChar](repeating: 0, count: 65536)
        while true {
            while let packet = try readingReport({ try reader.next() }) {
                if packet == .flush { return try readingReport { try PushReport(packets) } }
                packets.append(packet)
            }
            var read = 0
            try check("git_smart_subtransport_stream read", stream.pointee.read(stream, &chunk, chunk.count, &read))
            guard read > 0 else {
                throw GitError(message: "the remote closed the connection before its report", function: "receive-pack")
            }
            reader.append(chunk[0..<read].lazy.map { UInt8(bitPattern: $0) })
        }
    }

    /// What receive-pack's `report` says of `reference`.
    /// - Returns: ``PushOutcome/cloudMoved`` when the remote refused the update because the
    ///   reference had moved (or was being moved), else ``PushOutcome/pushed``.
    /// - Throws: ``GitError`` for any other refusal.
    private func checkReport(_ report: PushReport, for reference: String) throws -> PushOutcome {
        if let failure = report.unpackFailure {
            throw GitError(message: "the remote could not store the pack: \(failure)", function: "receive-pack")
        }
        let status = report.statuses.first { $0.reference == reference }
        if let status, status.refusal == nil { return .pushed }
        let refusal = status?.refusal ?? "no status for the reference"
        if ["fetch first", "non-fast-forward", "stale", "failed to update ref", "failed to lock"].contains(where: { refusal.contains($0) }) {
            return .cloudMoved
        }
        throw GitError(errorClass: .reference, message: "the remote refused \(reference): \(refusal)", function: "receive-pack")
    }
}

/// Runs `body`, reporting a ``FormatError`` in what receive-pack said or is told as a
/// ``GitError`` of the push.
private func readingReport<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as FormatError {
        throw GitError(message: "the remote's answer is malformed: \(error)", function: "receive-pack")
    }
}

/// The subtransport libgit2 makes for a smart transport, inside one that records the
/// advertisement libgit2 reads as it connects (`concord_recording_subtransport` in the C shim),
/// kept so that a push can read that advertisement and use its stream directly.
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
    /// The most bytes of an advertisement kept.
    let limit: Int
    /// libgit2's subtransport inside a recording one (`concord_recording_subtransport_new`).
    var subtransport: UnsafeMutablePointer<git_smart_subtransport>?

    init(_ kind: Kind, recordingAtMost limit: Int) {
        self.kind = kind
        self.limit = limit
    }

    /// The references the remote advertised when the transport connected, read from the bytes
    /// libgit2 received, with GitFormat's checks.
    /// - Throws: ``GitError`` when they are malformed, or were not kept (over the limit).
    func advertisement() throws -> ReferenceAdvertisement {
        guard let subtransport else { throw GitError(message: "libgit2 made no subtransport", function: "git_transport_smart") }
        var length = 0
        var failed: Int32 = 0
        let start = concord_recorded_advertisement(subtransport, &length, &failed)
        guard failed == 0 else {
            throw GitError(code: .oversizedAnswer, errorClass: .net, message: "the remote's advertisement is over \(limit) bytes", function: "receive-pack")
        }
        let bytes = start.map { Array(UnsafeRawBufferPointer(start: $0, count: length)) } ?? []
        do {
            return try ReferenceAdvertisement(bytes, service: kind == .http ? "git-receive-pack" : nil)
        } catch {
            throw GitError(message: "the remote's answer is malformed: \(error)", function: "receive-pack")
        }
    }
}

private let subtransportCallback: git_smart_subtransport_cb = { out, owner, param in
    guard let out, let param else { return -1 }
    let capture = Unmanaged<Subtransport>.fromOpaque(param).takeUnretainedValue()
    var inner: UnsafeMutablePointer<git_smart_subtransport>?
    let result =
        switch capture.kind {
        case .ssh: git_smart_subtransport_ssh(&inner, owner, nil)
        case .http: git_smart_subtransport_http(&inner, owner, nil)
        case .git: git_smart_subtransport_git(&inner, owner, nil)
        }
    guard result == 0, let inner else { return result < 0 ? result : -1 }
    guard let recording = concord_recording_subtransport_new(inner, capture.limit) else {
        inner.pointee.free(inner)
        return -1
    }
    capture.subtransport = recording
    out.pointee = recording
    return 0
}
