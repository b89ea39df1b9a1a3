internal import CGit2
internal import FoundationEssentials
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
    /// connecting (``connect(remote:url:access:limits:for:progress:through:_:)``, as a peek at a reference
    /// does), with `access` (credentials, host key check), `url`, `limits` and `connection` as in
    /// ``download(_:known:remote:url:access:limits:largestObject:progress:through:)``; this side reads the
    /// advertisement libgit2 received (``ReferenceAdvertisement``) and speaks receive-pack over
    /// its stream. The pack is built before connecting: the connection never waits on this side's
    /// work.
    /// - Returns: ``PushOutcome/cloudMoved`` when the remote's reference was not `expected`
    ///   (advertised, or found when it updated), and the credential the remote accepted (nil
    ///   when it asked for none).
    /// - Throws: ``GitError``: the reasons a fetch gives for a refused or failed connection, and
    ///   the remote's own refusal.
    func upload(
        _ target: OID, to reference: String, expected: OID?, remote name: String, url: String? = nil, access: RemoteAccess? = nil,
        limits: NetworkLimits = NetworkLimits(), through connection: KeptConnection? = nil
    ) throws -> (outcome: PushOutcome, accepted: Credential?) {
        let pack = try readingStore {
            var writer = try store.packOfChanges(from: [target], hiding: [expected].compactMap { $0 }, reusing: true)
            return try writer.finishInMemory()
        }
        let (outcome, accepted) = try connect(remote: name, url: url, access: access, limits: limits, for: .receivePack, through: connection) {
            connection -> PushOutcome in
            guard connection.advertisement.id(of: reference) == expected else { return .cloudMoved }
            let address = connection.address, subtransport = connection.subtransport
            var stream: UnsafeMutablePointer<git_smart_subtransport_stream>?
            try check(
                "git_smart_subtransport action",
                subtransport.pointee.action(&stream, subtransport, address, GIT_SERVICE_RECEIVEPACK))
            guard let stream else { throw GitError(message: "libgit2 opened no stream to \(address)", function: "git_smart_subtransport action") }
            // A stateless (http) stream is this caller's; a stateful one stays the transport's.
            defer { if connection.kind == .http { stream.pointee.free(stream) } }
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
            return try checkReport(readReport(from: stream), for: reference)
        }
        return (outcome, accepted)
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
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            while let packet = try readingReport({ try reader.next() }) {
                if packet == .flush { return try readingReport { try PushReport(packets) } }
                packets.append(packet)
            }
            let read = try self.read(from: stream, into: &chunk)
            guard read > 0 else {
                throw GitError(message: "the remote closed the connection before its report", function: "receive-pack")
            }
            reader.append(chunk[0..<read])
        }
    }

    /// Reads what `stream` has next into `buffer`, up to its size.
    /// - Returns: the bytes read; 0 when the remote closed the stream.
    func read(from stream: UnsafeMutablePointer<git_smart_subtransport_stream>, into buffer: inout [UInt8]) throws -> Int {
        var read = 0
        try buffer.withUnsafeMutableBufferPointer { bytes in
            try bytes.withMemoryRebound(to: CChar.self) { characters in
                try check("git_smart_subtransport_stream read", stream.pointee.read(stream, characters.baseAddress, characters.count, &read))
            }
        }
        return read
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
