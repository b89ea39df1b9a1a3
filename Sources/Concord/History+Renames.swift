internal import ConcordMerge
internal import FoundationEssentials
internal import Git
internal import GitFormat

/// A document's history across renames. A rename is a commit that removes the old name and adds
/// the new one with the same content, the new name's group of trailers saying `Concord-Renamed:
/// OLD`: it is a version of both (the old name's deletion, the new name's first version, which
/// replaced the old name's version). The new name's history goes on through the old one's: its
/// versions are its own, then those of each name it had, except the versions made under that name
/// after the rename (a new document of the old name). A version an edit made concurrently under
/// the old name is one of them: an integration carries it to the new name (``Integration``).
extension History {
    /// The most renames followed back from one document.
    static let renameLimit = 32

    /// The names `document` had before, each with the commit that renamed it from that name:
    /// the renames among its versions, then among those names' versions before each rename.
    func formerNames(of document: DocumentPath, at head: OID) throws -> [(name: DocumentPath, rename: OID)] {
        var result: [(name: DocumentPath, rename: OID)] = []
        var seen: Set<DocumentPath> = [document]
        var frontier: [(name: DocumentPath, before: OID?)] = [(document, nil)]
        while let (name, before) = frontier.popLast(), result.count < Self.renameLimit {
            for version in try ownVersions(of: name, at: head) where try before.map({ try !isAfterRename(version, $0) }) ?? true {
                guard let old = try known(version).trailers.renamedFrom(name), seen.insert(old).inserted else { continue }
                result.append((old, version))
                frontier.append((old, version))
            }
        }
        return result
    }

    /// The versions of `document` made under the names it had before (``formerNames(of:at:)``),
    /// each with that name, oldest names last; none of them is a version under its own name.
    func formerVersions(of document: DocumentPath, at head: OID) throws -> [(id: OID, name: DocumentPath)] {
        var result: [(id: OID, name: DocumentPath)] = []
        var listed = Set(try ownVersions(of: document, at: head))
        for (name, rename) in try formerNames(of: document, at: head) {
            for version in try ownVersions(of: name, at: head) where try !isAfterRename(version, rename) && listed.insert(version).inserted {
                result.append((version, name))
            }
        }
        return result
    }

    /// The name `document` had in its version `id`: `document` itself, or a name it had before
    /// a rename; nil when `id` is no version of it.
    func versionName(_ id: OID, of document: DocumentPath) throws -> DocumentPath? {
        if try isVersion(id, of: document, patterns: historyPatterns()) { return document }
        for head in try formerVersionHeads() {
            if let name = try formerVersions(of: document, at: head).first(where: { $0.id == id })?.name { return name }
        }
        return nil
    }

    /// The heads whose renames count: `main`'s, or while an integration runs, both sides' (a
    /// conflict record from the other side may name a version that came through a rename only
    /// that side has).
    func formerVersionHeads() throws -> [OID] {
        try integrating ?? head().map { [$0] } ?? []
    }

    /// The commits that are versions of `name` itself at `head`: from the history index when it
    /// describes `head`, else by walking the history.
    func ownVersions(of name: DocumentPath, at head: OID) throws -> [OID] {
        if let index = index(at: head) { return index.versions(of: name.value).map(\.commit) }
        var found: [OID] = []
        let patterns = try historyPatterns()
        try ConcordError.wrap("cannot walk the history") {
            try repository.walk(from: [head]) { id in
                if try isVersion(id, of: name, patterns: patterns) { found.append(id) }
                return true
            }
        }
        return found
    }

    /// True when `version` was made after the rename `rename` (it descends from it, or is it):
    /// under the old name, a new document. A commit's clock follows its parents' (unless one ran
    /// further ahead than ``HybridLogicalClock/maximumDrift``), so a version with an earlier
    /// clock does not descend from it, and the graph is walked only for the others.
    func isAfterRename(_ version: OID, _ rename: OID) throws -> Bool {
        if version == rename { return true }
        let later = try stamp(version), earlier = try stamp(rename)
        if later.clock <= earlier.clock, earlier.clock.date <= later.date.addingTimeInterval(HybridLogicalClock.maximumDrift) { return false }
        return try descends(version, from: rename)
    }

    /// `document`'s entry in `tree`, or, when it has none there, that of the first name it had
    /// before a rename that `tree` holds (a common ancestor from before the rename).
    func documentEntryFollowingRenames(_ document: DocumentPath, in tree: OID?) throws -> TreeEntry? {
        if let entry = try documentEntry(document, in: tree) { return entry }
        guard let head = try head() else { return nil }
        for (name, _) in try formerNames(of: document, at: head) {
            if let entry = try documentEntry(name, in: tree) { return entry }
        }
        return nil
    }
}
