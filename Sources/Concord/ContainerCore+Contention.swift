internal import ConcordMerge
internal import FoundationEssentials
internal import Git
internal import GitFormat

/// The versions in contention as the resolver reads them, and the common ancestor a merge of
/// them starts from: one reading for ``plan(_:using:head:headTree:dryRun:beside:)`` and for
/// ``contention(of:)``, so what a person is shown is what a resolution merges.
extension ContainerCore {
    /// A version in contention, read for a resolution.
    struct Contender {
        var id: OID
        var version: DocumentVersion
        var entry: TreeEntry?
        var content: DocumentContent?
    }

    /// The versions of `document` in contention at `head`: `current` first, then `others` in
    /// id order, each read under the name it was saved with (before a rename, the old name).
    func contenders(of document: DocumentPath, current: OID, others: Set<OID>, head: OID) throws -> [Contender] {
        let indexed = history.indexedVersions(of: document, at: head)
        return try ([current] + others.sorted()).map { id in
            // A version made before a rename holds the document under its old name.
            let name = indexed[id] != nil ? document : try history.versionName(id, of: document) ?? document
            let known = name == document ? indexed[id] : nil
            let entry = try history.entry(of: name, at: id, indexed: known)
            return Contender(
                id: id, version: try history.describe(id, of: name, current: current, conflicts: others, indexed: known),
                entry: entry, content: try history.content(of: entry))
        }
    }

    /// The contenders as a merge policy takes them, in ``MergeVersion/canonicalOrder(_:_:)``.
    func mergeVersions(_ contenders: [Contender], current: OID) -> [MergeVersion] {
        contenders.map { contender in
            MergeVersion(
                content: contender.content, id: contender.id.hex, deviceName: contender.version.deviceName,
                deviceID: contender.version.deviceID, clock: contender.version.clock, isCurrent: contender.id == current)
        }.sorted(by: MergeVersion.canonicalOrder)
    }

    /// The common ancestor of the contenders in their lines of edits
    /// (``History/commonPreviousVersion(of:document:limit:)``), else in the commit graph, and the
    /// document's content there (nil: none, or it did not exist there).
    func commonAncestor(of contenders: [Contender], document: DocumentPath) throws -> (id: OID?, content: DocumentContent?) {
        let ids = contenders.map(\.id)
        let base =
            try history.commonPreviousVersion(of: ids, document: document)
            ?? ConcordError.wrap("cannot find the common ancestor") { try repository.mergeBase(of: ids) }
        let content = try base.map { try history.content(of: history.documentEntryFollowingRenames(document, in: history.tree(of: $0))) } ?? nil
        return (base, content)
    }

    /// The contention of `document` in conflict: its versions with their contents, their
    /// common ancestor, and each policy's preview.
    /// - Throws: ``ConcordError/noSuchDocument(_:)``, ``ConcordError/notInConflict(_:)``.
    func contention(of document: DocumentPath) throws -> Contention {
        let head = try history.head()
        let headTree = try history.tree(of: head)
        guard let head, let record = try history.conflictRecord(of: document, in: headTree) else {
            if try history.documentEntry(document, in: headTree) == nil { throw ConcordError.noSuchDocument(document.value) }
            throw ConcordError.notInConflict(document.value)
        }
        guard let current = try history.currentVersion(of: document, at: head) else { throw ConcordError.noSuchDocument(document.value) }
        let others = try history.recordedVersions(record.versions, of: document).subtracting([current])
        let contenders = try contenders(of: document, current: current, others: others, head: head)
        let versions = mergeVersions(contenders, current: current)
        let (baseID, baseContent) = try commonAncestor(of: contenders, document: document)
        let ancestor = try baseID.map { id in
            let name = try history.versionName(id, of: document) ?? document
            return Contention.Ancestor(version: try history.describe(id, of: name, current: current, conflicts: others), content: baseContent)
        }
        func preview(_ policy: any MergePolicy) -> Contention.Preview {
            let decision = policy.decide(base: baseContent, versions: versions)
            return Contention.Preview(policy: policy.name, outcome: decision.outcome, note: decision.note)
        }
        let rules = try policyRules(in: headTree)
        let listed = contenders.prefix(1) + contenders.dropFirst().sorted { $0.version.rank < $1.version.rank }
        return Contention(
            document: document, versions: listed.map { Contention.Version(version: $0.version, content: $0.content) }, ancestor: ancestor,
            previews: MergePolicies.all.map(preview), selected: preview(try selectPolicy(for: document, versions: versions, tree: headTree)),
            selectingRule: rules.rule(for: document.value))
    }
}
