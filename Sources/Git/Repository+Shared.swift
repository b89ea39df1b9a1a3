internal import Foundation

extension Repository {
    /// Opens the bare repository at exactly `path`; nil when there is none there (no such
    /// folder, a work tree, or anything else).
    public static func openBare(at path: String) -> Repository? {
        guard let repository = try? open(at: path), repository.workDirectory == nil else { return nil }
        return repository
    }

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
