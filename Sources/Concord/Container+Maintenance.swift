internal import FoundationEssentials
internal import Git
internal import GitStore
internal import GitFormat

/// What `concord gc` did to this device's object database.
public struct Compaction: Sendable, Equatable {
    /// Packs before and after.
    public var packsBefore: Int, packsAfter: Int
    /// Loose objects packed.
    public var looseObjectsPacked: Int
    /// Objects nothing reached any more, removed (a refused cloud commit, an abandoned write); never a version.
    public var objectsPruned: Int
    /// Bytes of the object database before and after.
    public var bytesBefore: Int, bytesAfter: Int
}

extension Container {
    /// Repacks this device's objects into one pack now and removes the objects nothing reaches
    /// (every version stays reachable from `main` by design, so none is ever removed); merges the
    /// small packs of a cloud on a local path. Safe while other Concord processes read the
    /// container; writers wait for the container lock. Concord also keeps the number of packs
    /// small on its own after each write (a geometric roll-up); this does the whole job at once.
    /// - Throws: ``ConcordError`` when an object cannot be read or the pack cannot be written;
    ///   nothing is removed then.
    @available(*, noasync, message: "blocks on disk: from async code, await the async form")
    public func compact() throws -> Compaction {
        try withCore { core in
            try core.writer.write {
                let repository = core.repository
                let before = repository.packs(), beforeBytes = core.objectBytes()
                let report = try ConcordError.wrap("cannot repack") { try repository.repackAll() }
                if let cloud = try? core.localCloudRepository() { core.writer.maintain(cloud) }
                return Compaction(
                    packsBefore: before.count, packsAfter: repository.packs().count,
                    looseObjectsPacked: report.looseObjectsPacked, objectsPruned: report.objectsPruned,
                    bytesBefore: beforeBytes, bytesAfter: core.objectBytes())
            }
        }
    }

    /// The async form of the call above: the same work on a queue of its own (``Blocking``), so that the caller's
    /// executor (the main actor of an app) never waits on disk.
    public func compact() async throws -> Compaction {
        try await background { try self.compact() }
    }
}

extension ContainerCore {
    /// Bytes of the object database (packs and loose objects).
    func objectBytes() -> Int {
        let objects = repository.gitDirectory + "objects"
        guard let files = try? FileManager.default.subpathsOfDirectory(atPath: objects) else { return 0 }
        return files.reduce(0) { total, file in
            total + (RegularFile.size(of: "\(objects)/\(file)") ?? 0)
        }
    }
}
