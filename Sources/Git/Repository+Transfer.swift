internal import CGit2
public import GitFormat
internal import GitStore

extension Repository {
    /// Copies into `destination` every object of the commits reachable from `tips` and not from
    /// `known` (commits the destination already has), as one pack: the store's transfer
    /// (``ObjectStore/copyObjects(to:from:hiding:hashing:)``), which follows each commit's
    /// changed folders only. Both repositories must be on this machine.
    ///
    /// When this repository is its device's own (`trusted`), stored entries are copied as they
    /// are. When it is not (a cloud), every object is read and hashed as libgit2 hashes (SHA-1
    /// with collision detection) and refused unless it hashes to its id, and no delta names a
    /// base outside the pack.
    /// - Returns: the number of objects copied.
    /// - Throws: ``GitError`` when the pack cannot be stored, or when an object of this
    ///   repository cannot be read or does not hash to its id (then always
    ///   ``GitError/isBadObject``: it is damaged).
    @discardableResult
    public func copyObjects(to destination: Repository, from tips: [OID], hiding known: [OID], trusted: Bool = false) throws -> Int {
        let hashing: ObjectStore.ObjectHasher? = trusted ? nil : { Self.hash($0, $1) }
        return try readingStore { try store.copyObjects(to: destination.store, from: tips, hiding: known, hashing: hashing) }
    }

    /// The id libgit2 gives an object of `type` holding `bytes`: SHA-1 with collision detection
    /// (a collision attack hashes to an id no object has).
    static func hash(_ type: ObjectType, _ bytes: [UInt8]) -> OID {
        Libgit2.ensure()
        var computed = git_oid()
        let result = bytes.withUnsafeBytes { git_odb_hash(&computed, $0.baseAddress, $0.count, git_object_t(type)) }
        if result < 0 {
            git_error_clear()
            return OID(git_oid())
        }
        return OID(computed)
    }
}
