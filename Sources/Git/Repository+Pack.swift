internal import GitStore

extension Repository {
    /// Runs `body` with every object it writes kept in memory, then stored as one pack: one
    /// file synced once instead of one synced file per object (``ObjectStore/writingOnePack(streamingAbove:flushingAt:_:)``).
    /// References must not name the new objects before they are stored: moving one inside
    /// `body` stores the pack first. A blob larger than `streamingAbove` bytes goes to disk
    /// directly, and the pack is stored whenever the blobs held reach `flushingAt` bytes, so
    /// memory stays bounded. If `body` throws, the objects it wrote are dropped.
    /// - Throws: ``GitError`` when the pack cannot be stored, or what `body` throws.
    public func writingOnePack<T>(streamingAbove: Int = 8 << 20, flushingAt: Int = 64 << 20, _ body: () throws -> T) throws -> T {
        try readingStore { try store.writingOnePack(streamingAbove: streamingAbove, flushingAt: flushingAt, body) }
    }

    /// True inside ``writingOnePack(streamingAbove:flushingAt:_:)``.
    public var isWritingOnePack: Bool { store.session != nil }

    /// Stores the objects written so far as one pack (nothing outside ``writingOnePack(streamingAbove:flushingAt:_:)``),
    /// before a reference names them.
    func storePendingPack() throws {
        try readingStore { try store.flushSession() }
    }
}
