internal import Foundation
internal import Git
internal import GitFormat
internal import GitStore

/// Keeping an object database small and fast over years of saves and syncs (git's `gc --auto`
/// and `repack --geometric=2`): every sync or save leaves a pack or loose objects, and each pack
/// is opened and searched by every object lookup.
///
/// After each write, the smallest packs are merged whenever they stop forming a geometric
/// progression by bytes (``RollUp``; a pack of a large file is never rewritten by it), and
/// loose objects are packed once they pile up (a large file's loose object stays as it is).
/// What a save or a sync writes follows what changed, not what the container holds. Nothing is
/// removed before the new pack holding it is complete and synced.
enum Maintenance {
    /// Loose objects are packed once there are this many.
    static let looseObjectLimit = 128
    /// The most objects one automatic roll-up rewrites, so that it stays a small share of the
    /// operation that triggers it; `concord gc` has no bound.
    static let objectBudget = 100_000

    /// Rolls up what the geometric rule and the loose-object limit ask for, if anything.
    /// Run it holding the lock that keeps other writers of `repository` out.
    /// - Returns: what was done; nil when nothing was needed.
    @discardableResult
    static func keepSmall(_ repository: Repository) throws -> RepackReport? {
        var merge = RollUp.packsToMerge(repository.packs())
        while merge.reduce(0, { $0 + $1.objectCount }) > objectBudget, !merge.isEmpty { merge.removeLast() }
        if merge.count < 2 { merge = [] }
        let loose = repository.looseObjects().filter { (repository.looseObjectBytes($0) ?? 0) < RollUp.largeLooseObjectBytes }
        guard !merge.isEmpty || loose.count >= looseObjectLimit else { return nil }
        return try repository.merge(packs: merge, andLooseObjects: loose)
    }
}
