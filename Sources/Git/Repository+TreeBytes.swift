internal import GitFormat
internal import GitStore

extension Repository {
    /// The bytes of the tree `id` as git stores them (``RawTree``), from the store
    /// (``ObjectStore/read(_:)``: a version of a folder stored as a delta is rebuilt from its
    /// base's bytes when those were read recently).
    /// - Throws: ``GitError`` when the object is missing, damaged or not a tree.
    func treeBytes(_ id: OID) throws -> [UInt8] {
        try readingStore { try store.treeBytes(id) }
    }
}
