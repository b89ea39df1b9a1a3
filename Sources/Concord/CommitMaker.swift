internal import ConcordMerge
internal import FoundationEssentials
internal import Git
internal import GitFormat

/// Writes the commits this device makes: authored as the device, stamped with its id and a
/// hybrid logical clock that follows every commit the new one descends from.
struct CommitMaker {
    /// The repository the commits go into.
    let repository: Repository
    /// Reads the clocks of the parents.
    let history: History
    /// The author of every commit.
    let device: Device
    /// The wall clock.
    let now: @Sendable () -> Date

    /// The clock for a new commit that follows every commit reachable from `heads`.
    func nextClock(after heads: [OID]) throws -> HybridLogicalClock {
        var seen = HybridLogicalClock.zero
        for head in heads { seen = max(seen, try history.stamp(head).clock) }
        return HybridLogicalClock.next(after: seen, now: now())
    }

    /// Writes a commit authored as this device, with Concord's trailers, moving `main` from
    /// `parents.first` to it (compare-and-swap) unless `updateMain` is false.
    /// - Returns: the new commit.
    /// - Throws: ``ConcordError/failed(_:)`` when the commit would be larger than other devices
    ///   accept from a cloud (``ArrivalCheck/Limits/commitSize``), before anything is written.
    func commit(tree: OID, parents: [OID], subject: String, trailers extra: Trailers, updateMain: Bool = true) throws -> OID {
        let clock = try nextClock(after: parents)
        var trailers = extra
        trailers.add(Trailers.device, device.id)
        trailers.add(Trailers.clock, clock.description)
        let signature = Signature(name: device.name, email: "\(device.id)@concord.invalid", time: now())
        let message = trailers.message(subject: subject)
        // The tree, parent and signature lines count toward the limit too.
        let otherLines = 2 * (signature.name.utf8.count + signature.email.utf8.count) + 64 * (parents.count + 1) + 256
        if message.utf8.count + otherLines > ArrivalCheck.Limits.commitSize {
            throw ConcordError.failed(
                "this commit's message would be \(ArrivalCheck.format(message.utf8.count)), over the limit of \(ArrivalCheck.format(ArrivalCheck.Limits.commitSize)) that other devices accept for one commit; nothing was written (resolve fewer documents at once)"
            )
        }
        return try ConcordError.wrap("cannot write the commit") {
            try repository.createCommit(
                tree: tree, parents: parents, author: signature, committer: signature,
                message: message, updateReference: updateMain ? ContainerLayout.main : nil)
        }
    }
}
