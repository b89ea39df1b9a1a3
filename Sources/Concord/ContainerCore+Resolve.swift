internal import ConcordMerge
internal import FoundationEssentials
internal import Git
internal import GitFormat
internal import GitStore

/// The resolver (the NSFileVersion workflow): list the versions in contention, keep or merge,
/// save the result as the new current version, remove the other versions from the document's
/// versions and clear the in-conflict state — all in one commit, however many documents.
extension ContainerCore {
    /// One document's resolution, computed against main before anything is written.
    struct ResolutionPlan {
        /// The document's report, then one for each document in conflict below it that the
        /// resolution deletes (a folder replaced by the file kept).
        var reports: [ResolveReport]
        var updates: [TreeUpdate]
        /// The versions each document's group of trailers names as resolved.
        var groups: [(document: DocumentPath, resolves: [OID])]
        /// The folder (`todo/`) the resolution replaces by a file: its documents are deleted.
        var replacedFolder: String?
    }

    /// Resolves `documents` in one commit: all of them, or, when one cannot be resolved
    /// (a merge that needs a person, bad input), none.
    func resolve(_ documents: [DocumentPath], using resolution: Resolution, dryRun: Bool) throws -> [ResolveReport] {
        if dryRun { return try resolveUnlocked(documents, using: resolution, dryRun: true) }
        return try writeInOnePack { try resolveUnlocked(documents, using: resolution, dryRun: false) }
    }

    private func resolveUnlocked(_ documents: [DocumentPath], using resolution: Resolution, dryRun: Bool) throws -> [ResolveReport] {
        let head = try history.head()
        let headTree = try history.tree(of: head)
        var seen = Set<DocumentPath>()
        let unique = documents.filter { seen.insert($0).inserted }
        // A name resolved to a file where a folder stood deletes the folder's documents, and
        // resolves those in conflict: shallower names are planned first, and the documents
        // below a replaced folder are settled by its plan.
        var plans: [ResolutionPlan] = []
        var beside = BesideNames()
        for document in unique.enumerated().sorted(by: { ($0.element.components.count, $0.offset) < ($1.element.components.count, $1.offset) }).map(\.element) {
            if plans.contains(where: { plan in plan.replacedFolder.map { document.value.hasPrefix($0) } ?? false }) { continue }
            plans.append(try plan(document, using: resolution, head: head, headTree: headTree, dryRun: dryRun, beside: &beside))
        }
        let order = Dictionary(unique.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { a, _ in a })
        func ordered(_ reports: [ResolveReport]) -> [ResolveReport] {
            reports.sorted { (order[$0.document] ?? .max, $0.document) < (order[$1.document] ?? .max, $1.document) }
        }
        guard let head, !dryRun, !plans.isEmpty else { return ordered(plans.flatMap(\.reports)) }
        let newTree = try resolvedTree(plans, headTree: headTree)
        let unsaved = try checkout.unsavedPaths(from: headTree, to: newTree)
        if !unsaved.isEmpty { throw ConcordError.unsavedChanges(unsaved) }
        let (commit, reports) = try commitResolution(plans, tree: newTree, head: head, automatically: false)
        try checkout.advanceMain(from: head, to: commit, message: reports.count == 1 ? "concord: resolve \(reports[0].document)" : "concord: resolve \(reports.count) documents")
        return ordered(reports)
    }

    /// The tree of main with `plans` applied (its objects written, no commit).
    func resolvedTree(_ plans: [ResolutionPlan], headTree: OID?) throws -> OID {
        try ConcordError.wrap("cannot write the tree") { try repository.updateTree(headTree, plans.flatMap(\.updates)) }
    }

    /// Writes `plans` (their tree: `tree`) as one resolution commit on `head`, whose trailers
    /// name each document and the versions it resolves; main does not move.
    /// - Returns: the commit, and the plans' reports naming it as the new version.
    func commitResolution(_ plans: [ResolutionPlan], tree: OID, head: OID, automatically: Bool) throws -> (OID, [ResolveReport]) {
        var trailers = Trailers()
        for (document, resolves) in plans.flatMap(\.groups) {
            trailers.add(Trailers.document, document.value)
            for id in resolves { trailers.add(Trailers.resolves, id.hex) }
        }
        let verb = automatically ? "Resolve automatically" : "Resolve"
        let reports = plans.flatMap(\.reports)
        let subject =
            reports.count == 1
            ? "\(verb) \(reports[0].document): \(reports[0].explanation)"
            : "\(verb) \(reports.count) documents"
        let commit = try commitMaker.commit(tree: tree, parents: [head], subject: subject, trailers: trailers, updateMain: false)
        let named = reports.map { report in
            var report = report
            report.version = commit.hex
            return report
        }
        return (commit, named)
    }

    /// Computes one document's resolution against `head`, writing the objects of its new
    /// content (none for a dry run).
    /// A merge starts from the versions' common ancestor in their lines of edits
    /// (``History/commonPreviousVersion(of:document:limit:)``).
    /// - Throws: ``NeedsPersonError`` when a merge needs a person; the errors of ``resolve(_:using:dryRun:)``.
    func plan(_ document: DocumentPath, using resolution: Resolution, head: OID?, headTree: OID?, dryRun: Bool, beside: inout BesideNames) throws -> ResolutionPlan {
        guard let head, let record = try history.conflictRecord(of: document, in: headTree) else {
            if try history.documentEntry(document, in: headTree) == nil { throw ConcordError.noSuchDocument(document.value) }
            throw ConcordError.notInConflict(document.value)
        }
        guard let current = try history.currentVersion(of: document, at: head) else {
            // A record for a document that never existed names no version: resolving removes it.
            let report = ResolveReport(
                document: document, kept: nil, removed: [], explanation: "removed a conflict record that named no version of it",
                policy: nil, isDeletion: true, version: nil, clockWarnings: [])
            return ResolutionPlan(reports: [report], updates: dryRun ? [] : [.remove(path: ConflictRecord.path(of: document))], groups: [(document, [])])
        }
        let others = try history.recordedVersions(record.versions, of: document).subtracting([current])
        let contenders = try contenders(of: document, current: current, others: others, head: head)

        var kept: Contender?
        var explanation = ""
        var policyName: String?
        var warnings: [String] = []
        var savedBeside: [String: DocumentPath] = [:]
        let result: DocumentContent?
        switch resolution {
        case .latest:
            let (winner, why, skew) = try latest(contenders)
            kept = winner
            explanation = why
            warnings = skew
            result = winner.content
        case let .keep(text):
            let lowered = text.lowercased()
            let matches = contenders.filter { $0.id.hex.hasPrefix(lowered) && lowered.count >= 4 }
            guard matches.count == 1 else {
                _ = try history.resolveVersionID(text, of: document)
                throw ConcordError.notAContestedVersion(text, document: document.value)
            }
            kept = matches[0]
            explanation = "kept as asked: \(matches[0].version.deviceName)'s version of \(Self.format(matches[0].version.modified))"
            result = matches[0].content
        case .merge, .mergeBySelection:
            let versions = mergeVersions(contenders, current: current)
            let policy: any MergePolicy
            if case let .merge(given) = resolution {
                policy = given
            } else {
                policy = try selectPolicy(for: document, versions: versions, tree: headTree)
            }
            policyName = policy.name
            let baseContent = try commonAncestor(of: contenders, document: document).content
            if contenders.contains(where: { $0.entry?.isFolder == true }) {
                throw NeedsPersonError(
                    document: document, policy: policy.name,
                    reason: "it is a folder of documents in one version and a file in another, which no policy merges: keep one version, or both",
                    markedUp: nil)
            }
            let decision = policy.decide(base: baseContent, versions: versions)
            switch decision.outcome {
            case let .merged(content):
                result = content
                explanation = "merged \(contenders.count) versions with the \(policy.name) policy"
                if let note = decision.note { explanation += " (\(note))" }
            case let .needsPerson(reason, markedUp):
                throw NeedsPersonError(document: document, policy: policy.name, reason: reason, markedUp: markedUp)
            }
        case let .content(content):
            result = content
            explanation = "replaced by the content given"
        case .keepBoth:
            kept = contenders[0]
            result = contenders[0].content
            for contender in contenders.dropFirst() where contender.entry.map({ !$0.isFolder }) ?? false {
                savedBeside[contender.id.hex] = try beside.name(for: document, device: contender.version.deviceName, in: headTree, history: history, workTree: workTree)
            }
            explanation = "kept both: the current version stays"
            for (id, name) in savedBeside.sorted(by: { $0.value < $1.value }) {
                let device = contenders.first { $0.id.hex == id }?.version.deviceName ?? "another device"
                explanation += ", \(device)'s saved beside as '\(name)'"
            }
        }

        let keptFolder = kept?.entry?.isFolder == true
        let currentEntry = try history.documentEntry(document, in: headTree)
        let replacesFolder = !keptFolder && result != nil && currentEntry?.isFolder == true
        let removed = contenders.filter { $0.id != kept?.id }.map(\.version)
        var report = ResolveReport(
            document: document, kept: kept?.version, removed: removed, explanation: explanation, policy: policyName,
            isDeletion: result == nil, version: nil, clockWarnings: warnings)
        report.savedBeside = savedBeside
        let below = replacesFolder ? try conflictsBelow(document, head: head, headTree: headTree) : []
        if dryRun { return ResolutionPlan(reports: [report] + below.map(\.report), updates: [], groups: []) }

        let isPackage = try history.checkDocument(document, in: headTree)
        var updates: [TreeUpdate] = [.remove(path: ConflictRecord.path(of: document))]
        if keptFolder {
            // The folder stays as it is: its documents are versions of their own.
        } else if let newEntry = try writeEntry(result, isPackage: isPackage, document: document, mode: currentEntry?.mode) {
            if newEntry != currentEntry { updates.append(.upsert(path: document.value, id: newEntry.id, mode: newEntry.mode)) }
        } else if let currentEntry, !currentEntry.isFolder {
            updates.append(.remove(path: document.value))
        }
        var groups = [(document, contenders.map(\.id))]
        for (id, name) in savedBeside.sorted(by: { $0.value < $1.value }) {
            guard let entry = contenders.first(where: { $0.id.hex == id })?.entry else { continue }
            updates.append(.upsert(path: name.value, id: entry.id, mode: entry.mode))
            groups.append((name, []))
        }
        for settled in below {
            updates.append(.remove(path: ConflictRecord.path(of: settled.report.document)))
            groups.append((settled.report.document, settled.resolves))
        }
        return ResolutionPlan(reports: [report] + below.map(\.report), updates: updates, groups: groups, replacedFolder: replacesFolder ? document.value + "/" : nil)
    }

    /// The documents in conflict below `folder`, which a resolution replacing the folder by a
    /// file deletes: each with its report (every version in contention removed) and the
    /// versions its group of trailers names as resolved.
    private func conflictsBelow(_ folder: DocumentPath, head: OID?, headTree: OID?) throws -> [(report: ResolveReport, resolves: [OID])] {
        let prefix = folder.value + "/"
        return try history.conflictRecords(in: headTree).filter { $0.document.value.hasPrefix(prefix) }.sorted { $0.document < $1.document }.map { record in
            let document = record.document
            let current = try history.currentVersion(of: document, at: head)
            let others = try history.recordedVersions(record.versions, of: document).subtracting(current.map { [$0] } ?? [])
            let ids = (current.map { [$0] } ?? []) + others.sorted()
            let removed = try ids.map { try history.describe($0, of: document, current: current, conflicts: others) }
            let report = ResolveReport(
                document: document, kept: nil, removed: removed, explanation: "deleted with the folder '\(folder)/', replaced by the file '\(folder)'",
                policy: nil, isDeletion: true, version: nil, clockWarnings: [])
            return (report, ids)
        }
    }

    /// Latest-wins among the contenders (``LatestWins``), with why, and the clock skews it shows.
    private func latest(_ contenders: [Contender]) throws -> (Contender, String, [String]) {
        let decision = try LatestWins.decide(contenders, rank: \.version.rank) { later, earlier in
            try history.descends(later.id, from: earlier.id)
        }
        guard let decision else { preconditionFailure("the contenders hold at least the current version") }
        let winner = decision.winner, survivors = decision.concurrent, dominated = decision.followed
        var warnings: [String] = []
        for (earlier, follower) in dominated where follower.version.modified < earlier.version.modified {
            warnings.append(
                "\(follower.version.deviceName)'s version was saved after \(earlier.version.deviceName)'s was seen, though its wall clock says \(Self.format(follower.version.modified)), before \(Self.format(earlier.version.modified)): a clock is skewed"
            )
        }
        for loser in survivors where loser.id != winner.id && loser.version.modified > winner.version.modified {
            warnings.append(
                "\(winner.version.deviceName)'s version wins on its clock \(winner.version.clock) though \(loser.version.deviceName)'s wall-clock date is later (\(Self.format(loser.version.modified))): a clock is skewed"
            )
        }
        for contender in contenders where contender.version.clock.date.timeIntervalSince(contender.version.modified) > 60 {
            warnings.append(
                "\(contender.version.deviceName)'s version carries clock \(contender.version.clock) (\(Self.format(contender.version.clock.date))), later than its wall-clock date \(Self.format(contender.version.modified)): it follows a version from a device whose clock runs ahead"
            )
        }
        var why = "latest: \(winner.version.deviceName)'s version (clock \(winner.version.clock), \(Self.format(winner.version.modified)))"
        if survivors.count == 1, !dominated.isEmpty {
            why += " follows the others causally"
        } else {
            why += " has the greatest clock"
        }
        return (winner, why, warnings)
    }

    /// Writes the objects of a content; nil for a deletion.
    private func writeEntry(_ content: DocumentContent?, isPackage: Bool, document: DocumentPath, mode: UInt32?) throws -> TreeEntry? {
        switch content {
        case nil:
            return nil
        case let .file(data)?:
            if isPackage { throw ConcordError.invalidPackage(document.value, reason: "a package's content must be a folder") }
            let id = try ConcordError.wrap("cannot write the content") { try repository.writeBlob(data) }
            let fileMode = mode == TreeEntry.executableMode ? mode! : TreeEntry.fileMode
            return TreeEntry(name: document.name, id: id, mode: fileMode)
        case let .package(files)?:
            guard isPackage else { throw ConcordError.invalidPath(document.value, reason: "it is not a package document") }
            var updates: [TreeUpdate] = []
            for (path, data) in files.sorted(by: { $0.key < $1.key }) {
                _ = try DocumentPath(path)
                let id = try ConcordError.wrap("cannot write the content") { try repository.writeBlob(data) }
                updates.append(.upsert(path: path, id: id, mode: TreeEntry.fileMode))
            }
            let id = try ConcordError.wrap("cannot write the package") { try repository.updateTree(nil, updates) }
            return TreeEntry(name: document.name, id: id, mode: TreeEntry.treeMode)
        }
    }

    /// The policy for `--merge` without a name: the first matching line of the tracked
    /// `.concord/policies`, else the defaults (JSON for `*.json`, text for UTF-8, latest-wins for binary).
    func selectPolicy(for document: DocumentPath, versions: [MergeVersion], tree: OID?) throws -> any MergePolicy {
        try policyRules(in: tree).policy(for: document.value, versions: versions)
    }

    /// The rules of `.concord/policies` in `tree` (none when it has no such file).
    /// - Throws: ``ConcordError/failed(_:)`` naming the first bad line.
    func policyRules(in tree: OID?) throws -> PolicyRules {
        guard let entry = try history.entry(ContainerLayout.policies, in: tree) else { return PolicyRules() }
        let data = try ConcordError.wrap("cannot read \(ContainerLayout.policies)") { try repository.blob(entry.id) }
        do {
            return try PolicyRules(text: String(decoding: data, as: UTF8.self))
        } catch {
            throw ConcordError.failed("\(error)")
        }
    }

    static func format(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}
