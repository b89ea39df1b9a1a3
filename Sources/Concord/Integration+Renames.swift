internal import ConcordMerge
internal import FoundationEssentials
internal import Git
internal import GitFormat

/// A rename on one side and a change of the old name on the other (an edit, or a deletion) are
/// not a conflict: the change lands on the new name.
///
/// When one side renamed OLD to NEW since the base (in one rename or several in a row) and the
/// other side changed OLD, never had NEW, and neither name has a conflict record anywhere, NEW
/// is merged as if the other side had made its change there: when the renaming side did nothing
/// else to it (NEW's current version there is the last rename, made from the base's version of
/// OLD, or the base's version of OLD itself, carried to NEW by an earlier integration), NEW takes the other side's content and that side's version of OLD is NEW's current
/// version (the integration names it, `Concord-Current`); when both changed the content, it is a
/// conflict of NEW between the two versions, latest-wins choosing the provisional one. OLD
/// stays gone. Any other case (both sides renamed OLD, the other side made NEW too) merges name
/// by name, losing nothing: two names, or a conflict.
extension Integration {
    /// One rename that carries the other side's change of the old name.
    struct CarriedRename {
        var old: DocumentPath
        var new: DocumentPath
        /// True when the local side renamed.
        var renamedLocally: Bool
        /// The first rename of the chain (from OLD) and the last (to NEW).
        var first: OID
        var last: OID
    }

    /// What the commits of one side since the base say: the documents they saved, and their
    /// renames (old name to last new name, with the first and last rename commits).
    struct SideLog {
        var saved = Set<DocumentPath>()
        var renames: [DocumentPath: (new: DocumentPath, first: OID, last: OID)] = [:]
    }

    /// Reads the trailers of the commits after `base` on `head`'s side.
    func sideLog(from base: OID, to head: OID) throws -> SideLog {
        var log = SideLog()
        var commits: [OID] = []
        try ConcordError.wrap("cannot walk the history") {
            try repository.walk(from: [head], hiding: [base]) { id in
                commits.append(id)
                return true
            }
        }
        // Oldest first, so that a chain of renames ends at its last name.
        for id in commits.reversed() {
            let trailers = try history.known(id).trailers
            for document in trailers.values(Trailers.document) {
                let new = DocumentPath(unchecked: document)
                log.saved.insert(new)
                guard let old = trailers.renamedFrom(new) else { continue }
                if let chain = log.renames.first(where: { $0.value.new == old }) {
                    log.renames[chain.key] = (new, chain.value.first, id)
                } else {
                    log.renames[old] = (new, id, id)
                }
            }
        }
        return log
    }

    /// The renames of either side that carry the other side's change of the old name.
    func carriedRenames(local: Side, remote: Side, base: OID, baseTree: OID?, localLog: SideLog, remoteLog: SideLog) throws -> [CarriedRename] {
        var result: [CarriedRename] = []
        for (renamer, other, log, otherLog, isLocal) in [(local, remote, localLog, remoteLog, true), (remote, local, remoteLog, localLog, false)] {
            for (old, rename) in log.renames.sorted(by: { $0.key < $1.key }) {
                let new = rename.new
                guard otherLog.renames[old] == nil, try history.documentEntry(old, in: renamer.tree) == nil else { continue }
                guard let baseEntry = try history.documentEntry(old, in: baseTree), !baseEntry.isFolder else { continue }
                let baseVersion = try history.currentVersion(of: old, at: base)
                guard let otherVersion = try history.currentVersion(of: old, at: other.head), otherVersion != baseVersion,
                    try history.known(otherVersion).trailers.renamedTo(old) == nil,
                    try history.currentVersion(of: new, at: other.head) == nil
                else { continue }
                var recorded = false
                for tree in [baseTree, local.tree, remote.tree] {
                    if try history.conflictRecord(of: old, in: tree) != nil || history.conflictRecord(of: new, in: tree) != nil { recorded = true }
                }
                if recorded { continue }
                result.append(CarriedRename(old: old, new: new, renamedLocally: isLocal, first: rename.first, last: rename.last))
            }
        }
        return result
    }

    /// The outcome of merging NEW for a carried rename: its entry, its current version, the
    /// version in contention beside it (a conflict), and whether the integration must name the
    /// current version (it is the other side's version of OLD).
    struct CarriedOutcome {
        var merged: TreeEntry?
        var current: OID?
        var loser: OID?
        var namesCurrent: Bool
    }

    /// Merges NEW for `carried`: the renaming side's NEW against the other side's OLD.
    func mergeCarried(_ carried: CarriedRename, local: Side, remote: Side, base: OID) throws -> CarriedOutcome {
        let renamer = carried.renamedLocally ? local : remote, other = carried.renamedLocally ? remote : local
        let renamerEntry = try history.documentEntry(carried.new, in: renamer.tree)
        let renamerVersion = try history.currentVersion(of: carried.new, at: renamer.head)
        let otherEntry = try history.documentEntry(carried.old, in: other.tree)
        let otherVersion = try history.currentVersion(of: carried.old, at: other.head)
        let renamedFrom = try history.known(carried.first).commit.parents.first.map { try history.currentVersion(of: carried.old, at: $0) } ?? nil
        let baseVersion = try history.currentVersion(of: carried.old, at: base)
        // The renaming side did nothing else: NEW holds the rename itself, or the base's version
        // of OLD, which an earlier integration carried to NEW (the other side edited it since).
        let pure = (renamerVersion == carried.last && renamedFrom == baseVersion) || (renamerVersion != nil && renamerVersion == baseVersion)
        if pure {
            return CarriedOutcome(merged: otherEntry, current: otherVersion, loser: nil, namesCurrent: true)
        }
        if renamerEntry?.id == otherEntry?.id, renamerEntry?.mode == otherEntry?.mode {
            // The same content both ways (the entries' names differ: NEW and OLD): the local
            // side's version stays current.
            let current = carried.renamedLocally ? renamerVersion : otherVersion
            return CarriedOutcome(merged: renamerEntry, current: current, loser: nil, namesCurrent: !carried.renamedLocally)
        }
        guard let renamerVersion, let otherVersion else {
            return CarriedOutcome(merged: renamerEntry, current: renamerVersion, loser: nil, namesCurrent: false)
        }
        let otherWins = try history.isLater(otherVersion, than: renamerVersion)
        return CarriedOutcome(
            merged: otherWins ? otherEntry : renamerEntry, current: otherWins ? otherVersion : renamerVersion,
            loser: otherWins ? renamerVersion : otherVersion, namesCurrent: otherWins)
    }
}
