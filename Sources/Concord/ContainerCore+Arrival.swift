internal import Git
internal import GitStore
internal import GitFormat
internal import GitStore

extension ContainerCore {
    /// Checks what a fetch brought (the commits reachable from `remote` and not from `local`)
    /// before anything names it. On refusal, the packs the fetch wrote (those not in
    /// `packsBefore`) are removed: nothing names what they hold, and `origin/main` never moved.
    /// - Throws: ``ConcordError/refusedFromCloud(commit:path:reason:)`` and the like.
    func checkArrival(_ remote: OID, local: OID?, packsBefore: Set<String>) throws {
        do {
            // The container's limit as the arriving commits or this device's main name it,
            // whichever allows more (a raise travels with the files it allows).
            let named = [ContainerLimits.fileSize(at: remote, in: repository), ContainerLimits.fileSize(inMainOf: repository)].compactMap { $0 }.max()
            try ArrivalCheck(limits: .current(in: repository, containerFileSize: named)).check(repository, from: [remote], hiding: local.map { [$0] } ?? [])
        } catch {
            repository.removePacks(repository.packs().map(\.name).filter { !packsBefore.contains($0) })
            throw error
        }
    }
}
