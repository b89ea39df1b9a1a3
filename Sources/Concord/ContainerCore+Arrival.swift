internal import Git
internal import GitFormat

extension ContainerCore {
    /// Checks what a fetch brought (the commits reachable from `remote` and not from `local`)
    /// before anything names it but `origin/main`; on refusal, `origin/main` goes back to
    /// `previous`, so that the device keeps working on its own versions, and the packs the fetch
    /// wrote (those not in `packsBefore`) are removed: nothing names what they hold.
    /// - Throws: ``ConcordError/refusedFromCloud(commit:path:reason:)`` and the like.
    func checkArrival(_ remote: OID, local: OID, restoring previous: OID?, packsBefore: Set<String>) throws {
        do {
            try ArrivalCheck(limits: .current(in: repository)).check(repository, from: [remote], hiding: [local])
        } catch {
            repository.removePacks(repository.packs().map(\.name).filter { !packsBefore.contains($0) })
            try? ConcordError.wrap("cannot restore origin/main") {
                if let previous {
                    try repository.forceReference(Self.remoteBranch, to: previous, message: "concord: refused what the cloud sent")
                } else {
                    try repository.removeReference(Self.remoteBranch)
                }
            }
            throw error
        }
    }
}
