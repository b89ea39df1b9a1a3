internal import ConcordMerge
internal import FoundationEssentials
internal import Git
internal import GitFormat
internal import GitStore

extension ContainerCore {
    /// Every entry of the key-value store in `tree`, tombstones included.
    ///
    /// A key written in two normalizations (`café` with `é`, and with `e` and a combining accent)
    /// is one `String` key but two names in the folder: the entry that wins (the later write) is
    /// the key's, so that a write or a removal in either spelling is seen.
    func keyValueEntries(in tree: OID?) throws -> [String: KeyValueEntry] {
        guard let folder = try history.entry(KeyValueEntry.folder, in: tree), folder.kind == .tree else { return [:] }
        var result: [String: KeyValueEntry] = [:]
        for entry in try ConcordError.wrap("cannot read the key-value store", { try repository.entries(ofTree: folder.id) }) {
            guard let key = KeyValueEntry.key(fromName: entry.name),
                let value = try history.keyValueEntry(entry)
            else { continue }
            if let kept = result[key], kept.wins(over: value) { continue }
            result[key] = value
        }
        return result
    }

    /// The live keys and their JSON values.
    func keyValues() throws -> [String: Data] {
        try keyValueEntries(in: history.tree(of: history.head())).compactMapValues(\.value)
    }

    /// Sets (nil: removes) keys: one commit changing only those keys.
    func setKeyValues(_ changes: [String: Data?]) throws {
        var canonical: [String: Data?] = [:]
        for (key, value) in changes {
            try KeyValueStore.check(key: key)
            canonical.updateValue(try value.map { try KeyValueStore.canonicalJSON($0, key: key) }, forKey: key)
        }
        try writer.write {
            let head = try history.head()
            let headTree = try history.tree(of: head)
            var entries = try keyValueEntries(in: headTree)
            let clock = try commitMaker.nextClock(after: head.map { [$0] } ?? [])
            var updates: [TreeUpdate] = []
            for (key, value) in canonical.sorted(by: { $0.key < $1.key }) {
                if value == nil && entries[key]?.value == nil { continue }
                let entry = KeyValueEntry(value: value, clock: clock, deviceID: device.id)
                entries[key] = entry
                let blob = try ConcordError.wrap("cannot write the key-value entry") { try repository.writeBlob(entry.data) }
                updates.append(.upsert(path: KeyValueEntry.path(of: key), id: blob, mode: TreeEntry.fileMode))
            }
            guard !updates.isEmpty else { return }
            try KeyValueStore.checkQuota(entries.compactMapValues(\.value))
            let tree = try ConcordError.wrap("cannot write the tree") { try repository.updateTree(headTree, updates) }
            let subject =
                canonical.count == 1
                ? (canonical.first!.value == nil ? "Remove key \(canonical.first!.key)" : "Set key \(canonical.first!.key)")
                : "Set \(canonical.count) keys"
            _ = try commitMaker.commit(tree: tree, parents: head.map { [$0] } ?? [], subject: subject, trailers: Trailers())
        }
    }

    /// The keys whose entry differs between two commits, and whether another device wrote each.
    func changedKeys(from old: String?, to new: String?) throws -> [(key: String, external: Bool)] {
        let oldFolder = try history.entry(KeyValueEntry.folder, in: history.tree(of: old.flatMap(OID.init(hex:))))
        let newFolder = try history.entry(KeyValueEntry.folder, in: history.tree(of: new.flatMap(OID.init(hex:))))
        guard oldFolder?.id != newFolder?.id else { return [] }
        let changes = try ConcordError.wrap("cannot compare the key-value store") { try repository.diff(oldFolder?.id, newFolder?.id) }
        return try changes.compactMap { change in
            guard let key = KeyValueEntry.key(fromName: change.path) else { return nil }
            let writer = try history.keyValueEntry(change.new)?.deviceID
            return (key, writer != device.id)
        }
    }
}
