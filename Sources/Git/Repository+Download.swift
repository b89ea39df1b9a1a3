internal import CGit2
public import GitFormat

extension Repository {
    /// Fetches the commit `reference` names on a network remote (ssh, https, http or `git://`)
    /// with what it needs that this repository lacks, in one round: the advertisement, then one
    /// request (``UploadPack``) naming the commit and what this side has (`known`, the commits
    /// the remote most likely holds, and some of their ancestors: ``negotiationHaves(from:)``,
    /// read only when something is to be fetched), and the pack it answers, which
    /// libgit2's indexer checks and stores (its checks, its completion of a thin pack, objects
    /// over `largestObject` bytes refused by their header). No reference moves.
    ///
    /// libgit2's own fetch says what this side has by walking every reference newest first and
    /// asking the server about 20 commits at a time, one round each (a request and a new
    /// upload-pack over smart http), and gives up after 256: a device with more commits of its
    /// own than that received the whole history again.
    ///
    /// Connects as ``advertisedReference(_:remote:url:access:limits:through:)`` does (the same
    /// credentials, host key check, time-outs and answer limit, over `connection` for https and
    /// http), to upload-pack, which a device allowed only to read may reach.
    /// - Returns: the commit (nil when the remote has no such reference: nothing is fetched),
    ///   and the credential the remote accepted (nil when it asked for none).
    /// - Throws: ``GitError``: the reasons a peek gives for a refused or failed connection, the
    ///   remote's refusal, a malformed answer, a pack the indexer refuses (``GitError/isOverLimit``
    ///   for an object over `largestObject`).
    public func download(
        _ reference: String, known: [OID], remote name: String, url: String? = nil, access: RemoteAccess? = nil, limits: NetworkLimits = NetworkLimits(),
        largestObject: Int = 1 << 30, progress: (@Sendable (TransferProgress) -> Void)? = nil, through connection: KeptConnection? = nil
    ) throws -> (tip: OID?, accepted: Credential?) {
        Libgit2.ensure()
        try check("git_libgit2_opts", concord_git_set_pack_max_object_size(largestObject))
        let (tip, accepted) = try connect(remote: name, url: url, access: access, limits: limits, for: .uploadPack, progress: progress, through: connection) {
            connection -> OID? in
            guard let tip = connection.advertisement.id(of: reference) else { return nil }
            if contains(tip) { return tip }
            let offered = connection.advertisement.capabilities
            guard let sideBand = ["side-band-64k", "side-band"].first(where: offered.contains) else {
                throw GitError(message: "the remote offers no side-band, which Concord's fetch needs (any git since 2006 does)", function: "upload-pack")
            }
            let asked = [sideBand] + ["ofs-delta", "thin-pack"].filter(offered.contains) + ["agent=concord"]
            let request: [UInt8]
            do {
                request = try UploadPack.request(want: tip, haves: try negotiationHaves(from: known), capabilities: asked)
            } catch {
                throw GitError(message: "cannot ask for \(reference): \(error)", function: "upload-pack")
            }
            let address = connection.address, subtransport = connection.subtransport
            var stream: UnsafeMutablePointer<git_smart_subtransport_stream>?
            try check("git_smart_subtransport action", subtransport.pointee.action(&stream, subtransport, address, GIT_SERVICE_UPLOADPACK))
            guard let stream else { throw GitError(message: "libgit2 opened no stream to \(address)", function: "git_smart_subtransport action") }
            // A stateless (http) stream is this caller's; a stateful one stays the transport's.
            defer { if connection.kind == .http { stream.pointee.free(stream) } }
            // One write: libgit2's http stream sends a fetch's request body whole.
            try request.withUnsafeBufferPointer { buffer in
                try buffer.withMemoryRebound(to: CChar.self) { characters in
                    try check("git_smart_subtransport_stream write", stream.pointee.write(stream, characters.baseAddress, characters.count))
                }
            }
            try receivePack(from: stream, callbacks: connection.callbacks)
            return tip
        }
        return (tip, accepted)
    }

    /// The commits to name as this side's in a fetch from a remote that held `tips` when this
    /// side last heard (its remote-tracking reference first, then this side's own branch): each
    /// tip, then its first-parent ancestors 1, 2, 4, 8… commits back, up to 1,024, so that a
    /// remote that lost or rewrote its latest commits still finds an older common one, in at
    /// most 12 lines per tip. A tip this side does not hold is left out.
    func negotiationHaves(from tips: [OID]) throws -> [OID] {
        var haves: [OID] = []
        for tip in tips where contains(tip) {
            var commit = tip, depth = 0, next = 0
            while true {
                if depth == next {
                    if !haves.contains(commit) { haves.append(commit) }
                    next = next == 0 ? 1 : next * 2
                    if next > 1024 { break }
                }
                guard let parent = try parents(ofCommit: commit).first, contains(parent) else { break }
                commit = parent
                depth += 1
            }
        }
        return haves
    }

    /// Reads upload-pack's answer from `stream` and hands its pack to libgit2's indexer (through
    /// the object database, as libgit2's fetch does), reporting progress to `callbacks`.
    /// - Throws: ``GitError`` for a refusal, a malformed answer, a connection closed before the
    ///   end, and what the indexer refuses.
    private func receivePack(from stream: UnsafeMutablePointer<git_smart_subtransport_stream>, callbacks: RemoteCallbacks) throws {
        var database: OpaquePointer?
        try check("git_repository_odb", git_repository_odb(&database, pointer))
        defer { git_odb_free(database) }
        let (callback, payload) = callbacks.indexerProgress
        var pack: UnsafeMutablePointer<git_odb_writepack>?
        try check("git_odb_write_pack", git_odb_write_pack(&pack, database, callback, payload))
        guard let pack else { throw GitError(message: "libgit2 made no pack writer", function: "git_odb_write_pack") }
        defer { pack.pointee.free(pack) }
        var stats = git_indexer_progress()
        var answer = UploadPackAnswer()
        var chunk = [UInt8](repeating: 0, count: 65536)
        while !answer.isComplete {
            let read = try self.read(from: stream, into: &chunk)
            guard read > 0 else { throw GitError(message: "the remote closed the connection before the end of the pack", function: "upload-pack") }
            answer.append(chunk[0..<read])
            while true {
                let part: UploadPackAnswer.Part?
                do {
                    part = try answer.next()
                } catch {
                    throw GitError(message: "the remote's answer is malformed: \(error)", function: "upload-pack")
                }
                guard let part else { break }
                switch part {
                case .acknowledged:
                    continue
                case .pack(let bytes):
                    try bytes.withUnsafeBytes { buffer in
                        try check("git_indexer_append", pack.pointee.append(pack, buffer.baseAddress, buffer.count, &stats))
                    }
                case .progress:
                    callbacks.operation?.noteProgress()
                case .refusal(let message):
                    let said = message.split(whereSeparator: \.isNewline).joined(separator: " ")
                    throw GitError(message: "the remote refused the fetch: \(said)", function: "upload-pack")
                case .end:
                    break
                }
            }
        }
        try check("git_indexer_commit", pack.pointee.commit(pack, &stats))
    }
}
