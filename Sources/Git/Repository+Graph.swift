internal import CGit2
internal import GitStore
public import GitFormat

extension Repository {
    /// The best common ancestor of two commits; nil when they share no history.
    /// - Throws: ``GitError`` when a commit cannot be read.
    public func mergeBase(_ a: OID, _ b: OID) throws -> OID? {
        var out = git_oid()
        var rawA = a.raw, rawB = b.raw
        let result = try git_merge_base(&out, pointer, &rawA, &rawB)
        if result == GIT_ENOTFOUND.rawValue {
            git_error_clear()
            return nil
        }
        try check("git_merge_base", result)
        return OID(out)
    }

    /// The best common ancestor of all the commits; nil when they share no history.
    public func mergeBase(of commits: [OID]) throws -> OID? {
        guard let first = commits.first else { return nil }
        if commits.count == 1 { return first }
        var out = git_oid()
        var raws = commits.map(\.raw)
        let result = try git_merge_base_many(&out, pointer, raws.count, &raws)
        if result == GIT_ENOTFOUND.rawValue {
            git_error_clear()
            return nil
        }
        try check("git_merge_base_many", result)
        return OID(out)
    }

    /// True when `commit` descends from `ancestor` (a commit does not descend from itself).
    public func isDescendant(_ commit: OID, of ancestor: OID) throws -> Bool {
        var rawCommit = commit.raw, rawAncestor = ancestor.raw
        return try checked("git_graph_descendant_of", git_graph_descendant_of(pointer, &rawCommit, &rawAncestor)) == 1
    }

    /// How many commits `local` has that `upstream` lacks, and the reverse.
    public func aheadBehind(_ local: OID, _ upstream: OID) throws -> (ahead: Int, behind: Int) {
        var ahead = 0, behind = 0
        var rawLocal = local.raw, rawUpstream = upstream.raw
        try check("git_graph_ahead_behind", git_graph_ahead_behind(&ahead, &behind, pointer, &rawLocal, &rawUpstream))
        return (ahead, behind)
    }

    /// Visits the commits reachable from `tips` and not from `hidden`, newest first in
    /// topological order (a commit before its parents), until `body` returns false: the store's
    /// walk (``ObjectStore/commits(from:hiding:verifyingWith:)``), in libgit2's order.
    /// - Throws: ``GitError`` when a commit cannot be read, or what `body` throws.
    public func walk(from tips: [OID], hiding hidden: [OID] = [], _ body: (OID) throws -> Bool) throws {
        for id in try readingCommits({ try store.commits(from: tips, hiding: hidden) }) {
            guard try body(id) else { return }
        }
    }

    /// libgit2's revision walk (`GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME`), kept only as the oracle
    /// `CommitWalkTests` holds the store's walk to.
    func revisionWalk(from tips: [OID], hiding hidden: [OID]) throws -> [OID] {
        var walker: OpaquePointer?
        try check("git_revwalk_new", git_revwalk_new(&walker, pointer))
        defer { git_revwalk_free(walker) }
        try check(
            "git_revwalk_sorting",
            git_revwalk_sorting(walker, GIT_SORT_TOPOLOGICAL.rawValue | GIT_SORT_TIME.rawValue))
        for tip in tips {
            var raw = tip.raw
            try check("git_revwalk_push", git_revwalk_push(walker, &raw))
        }
        for hide in hidden {
            var raw = hide.raw
            try check("git_revwalk_hide", git_revwalk_hide(walker, &raw))
        }
        var found: [OID] = []
        var oid = git_oid()
        while true {
            let result = git_revwalk_next(&oid, walker)
            if result == GIT_ITEROVER.rawValue {
                git_error_clear()
                return found
            }
            try check("git_revwalk_next", result)
            found.append(OID(oid))
        }
    }
}
