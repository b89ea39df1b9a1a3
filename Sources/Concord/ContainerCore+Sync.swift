internal import ConcordMerge
internal import Foundation
internal import Git

extension ContainerCore {
    static let maximumSyncAttempts = 5

    /// Fetch, integrate, push (see ``Container/sync()``).
    func sync(progress: (@Sendable (SyncProgress) -> Void)?) throws -> SyncReport {
        try writer.write {
            if try DeviceSettings(repository: repository).isAirplaneModeOn() {
                throw ConcordError.offline(reason: "airplane mode", waiting: try waitingVersionCount())
            }
            var report = SyncReport(outcome: .upToDate, updatedDocuments: [], newConflicts: [], conflicts: [], pushedCommits: 0, attempts: 0)
            var updated = Set<DocumentPath>(), fresh = Set<DocumentPath>()
            let cloud = try cloudLink()
            while true {
                guard report.attempts < Self.maximumSyncAttempts else {
                    throw ConcordError.cloudKeptMoving(attempts: report.attempts)
                }
                report.attempts += 1
                let previousRemote = try ConcordError.wrap("cannot read origin/main") { try repository.resolve(Self.remoteBranch) }
                try cloud.fetch(progress: progress)
                CrashPoint.reach("sync:fetched")
                guard let local = try history.head() else { throw ConcordError.failed("this container has no first commit") }
                let remote = try ConcordError.wrap("cannot read origin/main") { try repository.resolve(Self.remoteBranch) }
                if let remote { try checkArrival(remote, local: local, restoring: previousRemote) }
                var toPush = local
                if let remote, remote != local {
                    if try repository.isDescendant(remote, of: local) {
                        fresh.formUnion(try arrivingConflicts(from: local, to: remote))
                        updated.formUnion(try moveMain(from: local, to: remote, message: "concord: fast-forward"))
                        if report.outcome == .upToDate { report.outcome = .fastForwarded }
                        break
                    }
                    if try !repository.isDescendant(local, of: remote) {
                        let integrated = try inOnePack { try integration.integrate(local: local, remote: remote) }
                        CrashPoint.reach("sync:integrated")
                        updated.formUnion(try moveMain(from: local, to: integrated.commit, message: "concord: integrate"))
                        fresh.formUnion(integrated.newConflicts)
                        report.outcome = .integrated
                        toPush = integrated.commit
                    }
                } else if remote == local {
                    break
                }
                let ahead = try remote.map { try repository.aheadBehind(toPush, $0).ahead } ?? 1
                do {
                    try cloud.push()
                    report.pushedCommits += ahead
                    if report.outcome == .upToDate { report.outcome = .pushed }
                    break
                } catch let error as GitError where error.isNotFastForward {
                    continue
                }
            }
            report.updatedDocuments = updated.sorted()
            report.newConflicts = fresh.sorted()
            report.conflicts = try history.conflicts().map(\.document)
            return report
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

    /// Documents whose conflict record gains a version between two commits.
    private func arrivingConflicts(from old: OID, to new: OID) throws -> [DocumentPath] {
        let before = Dictionary(try history.conflictRecords(in: history.tree(of: old)).map { ($0.document, $0.versions) }, uniquingKeysWith: { a, _ in a })
        return try history.conflictRecords(in: history.tree(of: new)).filter { record in
            try !history.recordedVersions(record.versions.subtracting(before[record.document] ?? []), of: record.document).isEmpty
        }.map(\.document)
    }
}
