internal import FoundationEssentials
internal import Git
internal import GitFormat
internal import GitStore
internal import Logging

/// Keeping the persistent ``HistoryIndex`` equal to `main`'s history: writers extend it after
/// `main` moves, by the commits that arrived (the cost follows them); a missing, damaged or
/// stale index is rebuilt from the repository, commit by commit along `main`'s first parents.
extension History {
    /// The index on disk, opened once per container object; nil when there is none usable.
    var openedIndex: HistoryIndex? {
        if index == nil { index = .some(HistoryIndex.open(gitDirectory: repository.gitDirectory)) }
        return index ?? nil
    }

    /// The index when it describes `head` exactly; nil otherwise (callers then walk the history).
    func index(at head: OID?) -> HistoryIndex? {
        guard let index = openedIndex, let head, index.tip == head else { return nil }
        return index
    }

    /// Brings the index to `main` (holding the container lock). A failure is only a warning:
    /// the index is a cache, and every query works without it.
    func updateIndex() {
        do {
            guard let head = try head() else { return }
            if index(at: head) != nil { return }
            let patterns = try packagePatterns(in: tree(of: head))
            if let index = openedIndex, index.patterns == patterns, let tip = index.tip, repository.contains(tip),
                try descends(head, from: tip)
            {
                try extend(index, to: head)
                try index.save(tip: head)
                #if DEBUG
                if let report = ProcessVariable.value("CONCORD_CHECK_HISTORY_INDEX") { try checkAgainstRebuild(index, from: tip, at: head, report: report) }
                #endif
            } else {
                try rebuildIndex(at: head)
            }
        } catch {
            self.index = .some(nil)
            logger.warning("could not update the history index (queries walk the history instead): \(error)")
        }
    }

    /// Builds the index anew from the repository.
    func rebuildIndex(at head: OID) throws {
        self.index = .some(nil)
        let index = HistoryIndex.empty(gitDirectory: repository.gitDirectory, patterns: try packagePatterns(in: tree(of: head)))
        self.index = .some(index)
        try extend(index, to: head)
        try index.save(tip: head)
    }

    /// Adds the commits reachable from `head` and not from the index's tip, one step per commit
    /// of `head`'s first-parent chain (with the side branches it merges), oldest first, so that
    /// each step's walks stop at the commit the step before reached.
    private func extend(_ index: HistoryIndex, to head: OID) throws {
        extendingUnder = index.patterns
        defer { extendingUnder = nil }
        let start = index.tip
        // A new index takes all of `head`'s history: no walk to learn what arrives.
        let arriving = try start.map { Set(try commits(reachableFrom: head, hiding: [$0])) }
        var chain: [OID] = []
        var next: OID? = head
        while let commit = next, arriving?.contains(commit) ?? true {
            chain.append(commit)
            next = try known(commit).commit.parents.first
        }
        for commit in chain.reversed() {
            // What the index covers: the history of where it started and of the step before.
            try step(index, to: commit, covered: Array(Set([start, index.tip].compactMap { $0 })))
            index.advance(to: commit)
        }
    }

    /// The commits `head` reaches and none of `covered` does, newest first (checked against the
    /// graph, whatever the commit dates say).
    func commits(reachableFrom head: OID, hiding covered: [OID]) throws -> [OID] {
        var result: [OID] = []
        try ConcordError.wrap("cannot walk the history") {
            try repository.walk(from: [head], hiding: covered) { id in
                result.append(id)
                return true
            }
        }
        guard !covered.isEmpty else { return result }
        // A walk hiding commits trusts commit dates (as `git rev-list` does): after a clock went
        // back, it also returns commits the hidden ones reach (a whole history came back once, and
        // every version in it was indexed twice). Keep only those none of them reaches: a commit
        // with a kept parent is kept; the others (where the arrivals start) ask the graph.
        var kept = Set<OID>()
        for commit in result.reversed() {
            if try known(commit).commit.parents.contains(where: kept.contains) {
                kept.insert(commit)
            } else if try !covered.contains(where: { try $0 == commit || descends($0, from: commit) }) {
                kept.insert(commit)
            }
        }
        return result.filter(kept.contains)
    }

    /// One step: the versions the arriving commits make, each with the path's entry and the
    /// versions it replaced, found while the index still describes the step's start; then added.
    private func step(_ index: HistoryIndex, to head: OID, covered: [OID]) throws {
        // A commit whose one parent is covered is all that arrives (a rebuild's usual step).
        let parents = try known(head).commit.parents
        let arrived = parents.count == 1 && covered.contains(parents[0]) ? [head] : try commits(reachableFrom: head, hiding: covered)
        index.arriving = Set(arrived)
        defer { index.arriving = nil }
        var additions: [(path: String, version: HistoryIndex.Version)] = []
        for commit in arrived.reversed() {
            let known = try known(commit)
            let commitTree = known.commit.tree
            var perParent: [Set<DocumentPath>] = []
            // A file's entries before and after, from the first parent's differences (a missing
            // one may also be a folder there: then it is read from the folder).
            var firstChanges: [TreePath: TreeChange] = [:]
            // The first parent's folders with a file removed or changed: only there can a path
            // the differences add have been a folder of documents in the first parent.
            var touchedFolders = Set<TreePath>()
            var firstParentTree: OID?
            for parent in known.commit.parents.isEmpty ? [nil] : known.commit.parents.map(Optional.some) {
                let parentTree = try tree(of: parent)
                let changes = try ConcordError.wrap("cannot compare trees") { try repository.diff(parentTree, commitTree) }
                if perParent.isEmpty {
                    firstChanges = Dictionary(changes.map { (TreePath($0.path), $0) }, uniquingKeysWith: { a, _ in a })
                    firstParentTree = parentTree
                    for change in changes where change.old != nil {
                        var folder = Substring(change.path)
                        while let slash = folder.lastIndex(of: "/") {
                            folder = folder[..<slash]
                            guard touchedFolders.insert(TreePath(String(folder))).inserted else { break }
                        }
                    }
                }
                var changed = Set(changes.compactMap { document(containing: $0.path, patterns: index.patterns)?.document })
                changed.formUnion(try foldersChangingState(changes, from: parentTree, to: commitTree, patterns: index.patterns))
                perParent.append(changed)
            }
            var versionPaths = perParent.dropFirst().reduce(perParent[0]) { $0.intersection($1) }
            versionPaths.formUnion(known.trailers.resolvedDocuments)
            // An integration that names another version current for a document is no version of it.
            if known.commit.parents.count > 1 {
                for document in known.trailers.currentDocuments where known.trailers.current(of: document) != commit { versionPaths.remove(document) }
            }
            // A document the first parent's differences do not name has that parent's entry (read
            // there: its folder was read already); a package's folder changed is read here.
            for document in versionPaths.sorted() where !Self.isConcordPath(document.value) {
                let path = document.value
                let change = firstChanges[TreePath(path)]
                let unchanged = change == nil && !perParent[0].contains(document) && firstParentTree != nil
                let raw = try change?.new ?? entry(path, in: unchanged ? firstParentTree : commitTree)
                let entry = documentEntry(converting: raw, of: path, patterns: index.patterns)
                // The entry in the first parent, when the differences tell it: a file's old
                // entry, or none for a file added where the first parent had no folder.
                let parentEntry: OID?? = change.flatMap { change in
                    change.old.map { .some($0.id) } ?? (touchedFolders.contains(TreePath(path)) || firstParentTree == nil ? nil : .some(nil))
                }
                let version = HistoryIndex.Version(
                    commit: commit, entry: entry?.id, mode: entry?.mode ?? 0,
                    replaces: try previousVersions(of: commit, document: document, parentEntry: parentEntry))
                additions.append((path, version))
            }
        }
        for (path, version) in additions { index.add(version, of: path) }
        for commit in arrived.reversed() { try indexCarried(index, at: commit) }
    }

    /// The versions an integration at `commit` names current for a document (`Concord-Current`)
    /// that are not versions of that document itself (an edit made under a name it had before a
    /// rename): indexed as carried, so that its current version is found there.
    private func indexCarried(_ index: HistoryIndex, at commit: OID) throws {
        let known = try known(commit)
        guard known.commit.parents.count > 1 else { return }
        for document in known.trailers.currentDocuments.sorted() {
            guard let named = known.trailers.current(of: document), named != commit,
                !index.allVersions(of: document.value).contains(where: { $0.commit == named })
            else { continue }
            let entry = try documentEntry(document, in: known.commit.tree)
            index.add(HistoryIndex.Version(commit: named, entry: entry?.id, mode: entry?.mode ?? 0, replaces: [], carried: true), of: document.value)
        }
    }

    /// The folders whose state differs between two trees (``History/documentEntry(_:in:)``: a
    /// folder of documents in one, a file or nothing in the other), from the files that differ:
    /// only a file added or removed can make or empty a folder, so only their folders are looked up.
    func foldersChangingState(_ changes: [TreeChange], from old: OID?, to new: OID?, patterns: PackagePatterns) throws -> Set<DocumentPath> {
        var looked = Set<TreePath>()
        var result = Set<DocumentPath>()
        for change in changes where change.old == nil || change.new == nil {
            guard let owner = document(containing: change.path, patterns: patterns)?.document else { continue }
            var folder = Substring(owner.value)
            while let slash = folder.lastIndex(of: "/") {
                folder = folder[..<slash]
                guard looked.insert(TreePath(folder)).inserted else { break }
                let path = String(folder)
                if try holdsFolder(path, in: old, patterns: patterns) != holdsFolder(path, in: new, patterns: patterns) {
                    result.insert(DocumentPath(unchecked: path))
                }
            }
        }
        return result
    }

    private func holdsFolder(_ path: String, in tree: OID?, patterns: PackagePatterns) throws -> Bool {
        documentEntry(converting: try entry(path, in: tree), of: path, patterns: patterns)?.isFolder == true
    }

    #if DEBUG
    /// Debug builds: compares the extended index with one rebuilt from scratch, path by path,
    /// and appends the first difference to the file `report` (for finding extension bugs in simulations).
    private func checkAgainstRebuild(_ index: HistoryIndex, from tip: OID, at head: OID, report: String) throws {
        let fresh = HistoryIndex.empty(gitDirectory: repository.gitDirectory + ContainerLayout.historyCheck, patterns: index.patterns)
        let saved = self.index
        self.index = .some(fresh)
        defer { self.index = saved }
        try extend(fresh, to: head)
        var lines: [String] = []
        for path in fresh.paths.union(index.paths).sorted().map(\.value) {
            let a = index.allVersions(of: path).map { "\($0.commit.short)=\($0.entry?.short ?? "-")<\($0.replaces.map(\.short))\($0.carried ? "c" : "")" }.sorted()
            let b = fresh.allVersions(of: path).map { "\($0.commit.short)=\($0.entry?.short ?? "-")<\($0.replaces.map(\.short))\($0.carried ? "c" : "")" }.sorted()
            if a != b { lines.append("  \(path): extended \(a); rebuilt \(b)") }
        }
        guard !lines.isEmpty else { return }
        let text = "INDEX MISMATCH extending \(tip.short) -> \(head.short) in \(repository.gitDirectory)\n" + lines.joined(separator: "\n") + "\n"
        try? RegularFile.write(Array(text.utf8), to: report, at: nil)
    }
    #endif

    private static func isConcordPath(_ path: String) -> Bool {
        ContainerLayout.isConcords(path)
    }
}
