internal import FoundationEssentials
internal import Glibc
internal import GitStore

extension Repository {
    /// Removes the lock file that a writer killed while moving `reference` left behind: git
    /// refuses every later update of the reference while it is there. Call only while holding
    /// a lock that keeps every other writer of this repository out.
    public func removeStaleLock(ofReference reference: String) {
        unlink("\(gitDirectory)\(reference).lock")
    }

    /// Removes the lock files that a writer killed while moving any of `references`, or while
    /// writing the packed references, the configuration or `HEAD`, left behind. Call only while
    /// holding a lock that keeps every other writer of this repository out.
    public func removeStaleLocks(ofReferences references: [String]) {
        for reference in references { removeStaleLock(ofReference: reference) }
        for name in ["packed-refs", "config", "HEAD"] { unlink("\(gitDirectory)\(name).lock") }
    }
}

extension Repository {
    /// Removes the temporary files a writer killed while writing objects left behind: libgit2's
    /// (`objects/tmp_object_git2_*` for a loose object, `objects/pack/pack_git2_*` for a pack
    /// being indexed, `*.lock` beside a pack's index) and Concord's (`*.tmp-<pid>` beside a pack
    /// it stores). Call only while holding a lock that keeps every other writer of this
    /// repository out: then none of them is being written.
    /// - Returns: how many files were removed.
    @discardableResult
    public func removeTemporaryFiles() -> Int { store.removeTemporaryFiles() }

    /// Removes the packs `names` (`pack-….pack`) with their indexes: a fetch's packs whose
    /// commits were refused, which nothing names. Call only while holding a lock that keeps
    /// every other writer of this repository out.
    public func removePacks(_ names: [String]) {
        store.removePacks(names)
    }
}
