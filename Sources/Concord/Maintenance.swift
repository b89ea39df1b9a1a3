internal import FoundationEssentials
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
    /// A device's roll-ups since its last push from which the roll-up of its local cloud waits
    /// for a later push. Both hold the same packs (each push's pack lands in both), so their
    /// geometric roll-ups come due at the same edit; without the wait, that edit's sync wrote
    /// both (two 459 KiB packs: 1.3 MiB for a one-line edit on a 700 MiB container).
    static let cloudWaitBytes = 64 << 10
    /// The most pushes in a row a local cloud's roll-up waits for (``cloudWaitBytes``).
    static let cloudWaitPushes = 3

    /// Rolls up what the geometric rule and the loose-object limit ask for, if anything.
    /// Run it holding the lock that keeps other writers of `repository` out.
    /// - Returns: the bytes of the packs and loose objects merged; 0 when nothing was needed.
    @discardableResult
    static func keepSmall(_ repository: Repository) throws -> Int {
        var merge = RollUp.packsToMerge(repository.packs())
        while merge.reduce(0, { $0 + $1.objectCount }) > objectBudget, !merge.isEmpty { merge.removeLast() }
        if merge.count < 2 { merge = [] }
        let loose = repository.looseObjects().compactMap { id in
            let bytes = repository.looseObjectBytes(id) ?? 0
            return bytes < RollUp.largeLooseObjectBytes ? (id, bytes) : nil
        }
        guard !merge.isEmpty || loose.count >= looseObjectLimit else { return 0 }
        try repository.merge(packs: merge, andLooseObjects: loose.map(\.0))
        return merge.reduce(0) { $0 + $1.bytes } + loose.reduce(0) { $0 + $1.1 }
    }
}
