internal import FoundationEssentials
internal import Git
internal import GitFormat
internal import Synchronization

extension Container {
    /// Points the container at another cloud (another account): the key-value store's
    /// observers are told with ``KeyValueChange/Reason/accountChange``.
    @available(*, noasync, message: "blocks on disk: from async code, await the async form")
    public func setCloud(_ url: String) throws {
        try withCore { core in
            try core.writer.write {
                try ConcordError.wrap("cannot write the configuration") {
                    try core.repository.setRemote("origin", url: url)
                }
                try DeviceSettings(repository: core.repository).setKeyValueStoreHasSeenCloud(false)
            }
        }
        let keys = (try? keyValueStore.dictionary().keys.sorted()) ?? []
        for continuation in keyValueContinuations.withLock({ Array($0.values) }) {
            continuation.yield(KeyValueChange(reason: .accountChange, keys: keys))
        }
    }

    /// The async form of the call above: the same work on a queue of its own (``Blocking``), so that the caller's
    /// executor (the main actor of an app) never waits on disk.
    public func setCloud(_ url: String) async throws {
        try await background { try self.setCloud(url) }
    }
}
