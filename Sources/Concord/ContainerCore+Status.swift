internal import FoundationEssentials
internal import Git
internal import GitFormat
internal import GitStore

/// `concord status`: what needs attention, read without the container's lock.
extension ContainerCore {
    func status() throws -> ContainerStatus {
        let conflicts = try history.conflicts().map { conflict in
            ContainerStatus.ConflictEntry(document: conflict.document, versions: try history.contestedVersions(of: conflict.document))
        }
        let waiting = try waitingDocuments()
        return ContainerStatus(
            conflicts: conflicts,
            waiting: waiting.documents.map { ContainerStatus.WaitingDocument(document: $0.key, versions: $0.value) }.sorted { $0.document < $1.document },
            waitingVersions: waiting.versions, skipped: try skippedFiles(), lastSync: LastSync.read(gitDirectory: repository.gitDirectory),
            agent: Self.agentStatus(gitDirectory: repository.gitDirectory),
            isAirplaneModeOn: try DeviceSettings(repository: repository).isAirplaneModeOn())
    }

    /// The versions on main the cloud has not received (as ``waitingVersionCount()`` counts
    /// them: every commit but integrations), and for each document how many of them changed it
    /// (by their trees, and their `Concord-Document` trailers: a resolution that kept the
    /// content it had is a version too).
    func waitingDocuments() throws -> (versions: Int, documents: [DocumentPath: Int]) {
        guard let local = try history.head() else { return (0, [:]) }
        let remote = try ConcordError.wrap("cannot read origin/main") { try repository.resolve(ContainerLayout.remoteMain) }
        var versions = 0
        var documents: [DocumentPath: Int] = [:]
        try ConcordError.wrap("cannot walk the history") {
            try repository.walk(from: [local], hiding: remote.map { [$0] } ?? []) { id in
                let known = try history.known(id)
                guard known.commit.parents.count < 2 else { return true }
                versions += 1
                var changed = Set(known.trailers.values(Trailers.document).map { DocumentPath(unchecked: $0) })
                let tree = known.commit.tree
                let parentTree = try known.commit.parents.first.map { try history.known($0).commit.tree }
                let patterns = try history.packagePatterns(in: tree)
                for change in try repository.diff(parentTree, tree) where !ContainerLayout.isConcords(change.path) {
                    if let (document, _) = history.document(containing: change.path, patterns: patterns) { changed.insert(document) }
                }
                for document in changed { documents[document, default: 0] += 1 }
                return true
            }
        }
        return (versions, documents)
    }

    /// The work tree's entries that saves leave out (``WorkTree/skippedFiles(sizeLimit:describeSize:)``).
    func skippedFiles() throws -> [SkippedFile] {
        let limits = try limits()
        return workTree.skippedFiles(sizeLimit: limits.objectSize) { size, path in
            do {
                try limits.checkSize(size, of: path)
            } catch let ConcordError.io(_, reason) {
                return reason
            } catch {}
            return "\(ArrivalCheck.format(size)) is over the limit for one file"
        }
    }

    /// Whether a sync agent holds the agent lock of the container in `gitDirectory`, and its process id.
    static func agentStatus(gitDirectory: String) -> AgentStatus {
        let file = SyncAgent.lockFile(gitDirectory: gitDirectory)
        guard ContainerLock.isHeld(file: file) else { return AgentStatus(isRunning: false, processID: nil) }
        let text = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
        return AgentStatus(isRunning: true, processID: Int(text.trimmingSpaces(newlines: true)))
    }
}
