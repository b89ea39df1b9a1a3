internal import ConcordMerge
internal import FoundationEssentials
internal import Git
internal import GitFormat
internal import GitStore
internal import Logging

extension ContainerCore {
    static let maximumSyncAttempts = 8

    /// Fetch, integrate, resolve what rules resolve on their own, push (see ``Container/sync()``);
    /// how it ended is recorded for ``Container/lastSync()`` (a sync that found the container busy
    /// did not start, and records nothing).
    ///
    /// `yielding`, asked after each race lost, ends the sync there (``SyncYield``) when it says
    /// so: the agent's, when the work tree was edited meanwhile, so that the edit is saved before
    /// the sync goes on losing races (a long contention held edits unsaved until a later edit
    /// replaced them). What the sync integrated stays on `main`; the next sync sends it.
    func sync(progress: (@Sendable (SyncProgress) -> Void)?, yielding: (() -> Bool)? = nil) throws -> SyncReport {
        try writer.write {
            do {
                let report = try syncHoldingLock(progress: progress, yielding: yielding)
                recordLastSync(LastSync(time: commitMaker.now(), outcome: report.outcome.rawValue, error: nil))
                return report
            } catch let yield as SyncYield {
                throw yield
            } catch {
                let offline = if case ConcordError.offline = error { true } else { false }
                let message = (error as? ConcordError)?.description ?? "\(error)"
                recordLastSync(LastSync(time: commitMaker.now(), outcome: offline ? LastSync.offline : LastSync.failed, error: message))
                throw error
            }
        }
    }

    private func syncHoldingLock(progress: (@Sendable (SyncProgress) -> Void)?, yielding: (() -> Bool)?) throws -> SyncReport {
        if try DeviceSettings(repository: repository).isAirplaneModeOn() {
            throw ConcordError.offline(reason: "airplane mode", waiting: try waitingVersionCount())
        }
        var report = SyncReport(outcome: .upToDate, updatedDocuments: [], newConflicts: [], conflicts: [], pushedCommits: 0, attempts: 0)
        var updated = Set<DocumentPath>()
        var resolved: [DocumentPath: ResolveReport] = [:]
        var left: [AutoResolveFailure] = []
        let start = try history.head()
        let cloud = try cloudLink()
        while true {
            guard report.attempts < Self.maximumSyncAttempts else {
                throw ConcordError.cloudKeptMoving(attempts: report.attempts)
            }
            report.attempts += 1
            let previousRemote = try ConcordError.wrap("cannot read origin/main") { try repository.resolve(ContainerLayout.remoteMain) }
            let packsBefore = Set(repository.packs().map(\.name))
            let fetched = try cloud.fetch(progress: progress)
            CrashPoint.reach("sync:fetched")
            guard let local = try history.head() else { throw ConcordError.failed("this container has no first commit") }
            if let fetched, fetched != previousRemote {
                try checkArrival(fetched, local: local, packsBefore: packsBefore)
                try ConcordError.wrap("cannot write origin/main") {
                    try repository.forceReference(ContainerLayout.remoteMain, to: fetched, message: "concord: fetch")
                }
            }
            let remote = fetched ?? previousRemote
            CrashPoint.reach("sync:accepted")
            // Where main goes before the push: the cloud's main, or the integration of both,
            // then the resolution of what `auto` rules resolve, so that the cloud never holds
            // such a conflict unresolved. Main and the work tree move once, refusing first to
            // overwrite an edit not saved.
            var target = local
            var message = "concord: resolve automatically"
            if let remote, remote != local {
                if try history.descends(remote, from: local) {
                    target = remote
                    message = "concord: fast-forward"
                    if report.outcome == .upToDate { report.outcome = .fastForwarded }
                } else if try !history.descends(local, from: remote) {
                    target = try inOnePack { try integration.integrate(local: local, remote: remote) }
                    CrashPoint.reach("sync:integrated")
                    message = "concord: integrate"
                    report.outcome = .integrated
                }
            }
            let automatic = try inOnePack { try resolveAutomatically(at: target) }
            left = automatic.left
            if let commit = automatic.commit {
                for resolution in automatic.reports { resolved[resolution.document] = resolution }
                target = commit
            }
            if target != local { updated.formUnion(try moveMain(from: local, to: target, message: message)) }
            if let remote, target == remote { break }
            let toPush = target
            let ahead = try remote.map { try repository.aheadBehind(toPush, $0).ahead } ?? 1
            // The roll-up that would follow the sync, first: what saves left loose is then
            // packed, each folder a delta against its previous version, and the push copies
            // those entries as stored instead of reading and comparing each one again.
            writer.maintain(repository)
            guard try cloud.push() == .pushed else {
                if let yielding, yielding() { throw SyncYield(attempts: report.attempts) }
                // Lost the race: another device pushed meanwhile. Wait a jittered, growing while
                // before fetching again, so that devices racing each other spread out.
                RaceBackoff().pause(afterLost: report.attempts)
                continue
            }
            report.pushedCommits += ahead
            if report.outcome == .upToDate { report.outcome = .pushed }
            break
        }
        report.updatedDocuments = updated.sorted()
        if let start, let end = try history.head() { report.newConflicts = try arrivingConflicts(from: start, to: end) }
        report.conflicts = try history.conflicts().map(\.document)
        report.autoResolved = resolved.values.sorted { $0.document < $1.document }
        report.autoResolveFailures = left.filter { report.newConflicts.contains($0.document) }
        return report
    }

    /// Records how the last sync ended in `.git/concord/last-sync` (a failure to write it is a
    /// warning: the sync itself is done).
    private func recordLastSync(_ record: LastSync) {
        do {
            try record.write(gitDirectory: repository.gitDirectory)
        } catch {
            history.logger.warning("cannot record the last sync: \(error)")
        }
    }

    /// Moves main and the work tree, refusing first if that would overwrite changes not saved.
    /// - Returns: the documents whose content changed.
    private func moveMain(from old: OID, to new: OID, message: String) throws -> Set<DocumentPath> {
        let oldTree = try history.tree(of: old), newTree = try history.tree(of: new)
        let unsaved = try checkout.unsavedPaths(from: oldTree, to: newTree)
        if !unsaved.isEmpty { throw ConcordError.unsavedChanges(unsaved) }
        let patterns = try history.packagePatterns(in: newTree)
        let changed = try ConcordError.wrap("cannot compare trees") { try repository.diff(oldTree, newTree) }
        try checkout.advanceMain(from: old, to: new, message: message)
        return Set(changed.compactMap { history.document(containing: $0.path, patterns: patterns)?.document })
    }

    /// The documents in conflict at `new` whose conflict record gains a version since `old`:
    /// a sync's ``SyncReport/newConflicts``, from the main it started at to the one it ends at,
    /// whether it fast-forwarded or integrated (a conflict the integration found and one that
    /// arrived already in conflict on the cloud's side alike). Reads only the records that differ.
    private func arrivingConflicts(from old: OID, to new: OID) throws -> [DocumentPath] {
        let oldTree = try history.tree(of: old), newTree = try history.tree(of: new)
        return try history.changedConflictRecords(from: oldTree, to: newTree).filter { document in
            guard let after = try history.conflictRecord(of: document, in: newTree) else { return false }
            let before = try history.conflictRecord(of: document, in: oldTree)?.versions ?? []
            return try !history.recordedVersions(after.versions.subtracting(before), of: document).isEmpty
        }.sorted()
    }
}

/// A sync that stopped after a lost race because its caller asked it to (an edit to save
/// first); nothing is lost, and the next sync goes on from there.
struct SyncYield: Error {
    /// The races the sync had lost.
    let attempts: Int
}
