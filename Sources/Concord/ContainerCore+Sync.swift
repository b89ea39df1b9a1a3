internal import ConcordMerge
internal import Foundation
internal import Git

extension ContainerCore {
    static let maximumSyncAttempts = 5

    /// Fetch, integrate, push (see ``Container/sync()``).
    func sync(progress: (@Sendable (SyncProgress) -> Void)?) throws -> SyncReport {
        try writing {
            if try repository.config("concord.airplane") == "true" {
                throw ConcordError.offline(reason: "airplane mode", waiting: try waitingVersionCount())
            }
            var report = SyncReport(outcome: .upToDate, updatedDocuments: [], newConflicts: [], conflicts: [], pushedCommits: 0, attempts: 0)
            var updated = Set<DocumentPath>(), fresh = Set<DocumentPath>()
            while true {
                guard report.attempts < Self.maximumSyncAttempts else {
                    throw ConcordError.cloudKeptMoving(attempts: report.attempts)
                }
                report.attempts += 1
                let previousRemote = try ConcordError.wrap("cannot read origin/main") { try repository.resolve(Self.remoteBranch) }
                try fetchCloud(progress: progress)
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
                        let integration = try inOnePack { try integrate(local: local, remote: remote) }
                        CrashPoint.reach("sync:integrated")
                        updated.formUnion(try moveMain(from: local, to: integration.commit, message: "concord: integrate"))
                        fresh.formUnion(integration.newConflicts)
                        report.outcome = .integrated
                        toPush = integration.commit
                    }
                } else if remote == local {
                    break
                }
                let ahead = try remote.map { try repository.aheadBehind(toPush, $0).ahead } ?? 1
                do {
                    try pushMain()
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
        let unsaved = try unsavedPaths(from: oldTree, to: newTree)
        if !unsaved.isEmpty { throw ConcordError.unsavedChanges(unsaved) }
        let patterns = try history.packagePatterns(in: newTree)
        let changed = try ConcordError.wrap("cannot compare trees") { try repository.diff(oldTree, newTree) }
        try advanceMain(from: old, to: new, message: message)
        return Set(changed.compactMap { history.document(containing: $0.path, patterns: patterns)?.document })
    }

    /// Documents whose conflict record gains a version between two commits.
    private func arrivingConflicts(from old: OID, to new: OID) throws -> [DocumentPath] {
        let before = Dictionary(try history.conflictRecords(in: history.tree(of: old)).map { ($0.document, $0.versions) }, uniquingKeysWith: { a, _ in a })
        return try history.conflictRecords(in: history.tree(of: new)).filter { record in
            try !history.recordedVersions(record.versions.subtracting(before[record.document] ?? []), of: record.document).isEmpty
        }.map(\.document)
    }

    func fetchCloud(progress: (@Sendable (SyncProgress) -> Void)?) throws {
        guard let url = try repository.remoteURL("origin") else {
            throw ConcordError.failed("this container has no cloud: give one with 'concord init --remote URL'")
        }
        do {
            if let cloud = try localCloud(url) {
                guard let tip = try cloud.resolve(Self.branch) else { return }
                if !repository.contains(tip) {
                    let known = try [history.head(), repository.resolve(Self.remoteBranch)].compactMap { $0 }
                    try cloud.copyObjects(to: repository, from: [tip], hiding: known)
                }
                try repository.forceReference(Self.remoteBranch, to: tip, message: "concord: fetch")
            } else {
                try repository.fetch(remote: "origin", refspecs: ["+\(Self.branch):\(Self.remoteBranch)"], progress: progress.map(SyncProgress.forward))
            }
        } catch let error as GitError {
            var cause = Cloud.redacted(error.message)
            if let local = Cloud.localPath(url), !FileManager.default.fileExists(atPath: local) {
                cause = "the cloud folder \(local) does not exist"
            }
            throw ConcordError.offline(
                reason: "cannot reach the cloud \(Cloud.redacted(url)): \(cause)",
                waiting: (try? waitingVersionCount()) ?? 0)
        }
    }

    func pushMain() throws {
        let url = try repository.remoteURL("origin") ?? "origin"
        // A cloud on a local path: pushes from this machine's Concord processes take turns, so a
        // reference lock found in the cloud while holding the turn was left by a killed push.
        var cloudLock: ContainerLock?
        if let local = Cloud.localPath(url), FileManager.default.fileExists(atPath: "\(local)/refs") {
            cloudLock = try? ContainerLock(file: "\(local)/concord-push.lock", holder: local, timeout: lockTimeout)
            if cloudLock != nil { unlink("\(local)/refs/heads/main.lock") }
        }
        defer { withExtendedLifetime(cloudLock) {} }
        do {
            if let cloud = try localCloud(url), let main = try history.head(), let fetched = try repository.resolve(Self.remoteBranch) {
                // Only a fast-forward of what this sync fetched: if the cloud moved since, the
                // compare-and-swap fails as a rejected push does, and the sync tries again.
                try repository.copyObjects(to: cloud, from: [main], hiding: [fetched] + [cloud.resolve(Self.branch)].compactMap { $0 })
                try cloud.setReference(Self.branch, to: main, expected: fetched, message: "concord: push")
                maintain(cloud)
            } else {
                try repository.push(remote: "origin", refspecs: ["\(Self.branch):\(Self.branch)"])
            }
        } catch let error as GitError where !error.isNotFastForward {
            throw ConcordError.offline(
                reason: "cannot push to the cloud \(Cloud.redacted(url)): \(Cloud.redacted(error.message))",
                waiting: (try? waitingVersionCount()) ?? 0)
        }
        if let main = try history.head() {
            try? repository.forceReference(Self.remoteBranch, to: main, message: "concord: pushed")
        }
    }

    /// The cloud as a repository when it is a bare repository on this machine: fetch and push
    /// then copy exactly the objects that changed (``Repository/copyObjects(to:from:hiding:)``)
    /// instead of going through a transport. Nil for a network cloud.
    func localCloud(_ url: String) throws -> Repository? {
        guard let path = Cloud.localPath(url), FileManager.default.fileExists(atPath: "\(path)/objects"),
              !FileManager.default.fileExists(atPath: "\(path)/.git") else { return nil }
        let cloud = try Repository.open(at: path)
        return cloud.workDirectory == nil ? cloud : nil
    }

    /// The cloud as a repository when it is a bare repository on this machine; nil otherwise.
    func localCloudRepository() throws -> Repository? {
        guard let url = try repository.remoteURL("origin") else { return nil }
        return try localCloud(url)
    }

    /// Versions (commits other than integrations) on main that the cloud has not received.
    func waitingVersionCount() throws -> Int {
        guard let local = try history.head() else { return 0 }
        let remote = try repository.resolve(Self.remoteBranch)
        var count = 0
        try ConcordError.wrap("cannot walk the history") {
            try repository.walk(from: [local], hiding: remote.map { [$0] } ?? []) { id in
                if try repository.parents(ofCommit: id).count < 2 { count += 1 }
                return true
            }
        }
        return count
    }
}
