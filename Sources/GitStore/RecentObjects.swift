package import GitFormat
/// The objects read last that others are rebuilt from, kept by their owner (a repository): the
/// folders read, and the bases a delta was applied to. A version stored as a delta against one
/// of them is rebuilt with one delta, and a folder compared twice in a row is read once.
///
/// libgit2 keeps no delta base over 1 MB (a flat folder of 25,000 documents): each version of
/// a wide folder read through it rebuilds its whole chain of deltas from a whole copy. A
/// checkout of 100,000 documents whose files are stored as chains of up to 50 deltas rebuilt
/// each chain from its whole base, some 25 deltas a file, before bases were kept.
package final class RecentObjects {
    private var kept: [OID: (type: ObjectType, bytes: [UInt8], use: Int)] = [:]
    /// Each keep and each lookup, oldest first from `oldest`; an object's last use is the one its
    /// entry in `kept` names, and its older ones are passed over. (Moving an object to the end of
    /// a list at each lookup searched and shifted up to 1,024 ids at every read: 4% of a clone
    /// of 20,000 commits.)
    private var uses: [(id: OID, use: Int)] = []
    private var oldest = 0
    private var clock = 0
    private var bytes = 0
    /// The most bytes kept; an object larger than this is not kept at all.
    package let limit: Int
    /// The most objects kept: the bases a line of versions is rebuilt from (a version's base is
    /// at most log2(versions) steps back, ``PackWriter``), and the narrow folders a sync reads
    /// more than once (the fetch, the arrival check, the integration and the roll-up each read
    /// the folders that changed: some 600 of 4 KB in a sync of 200 commits), within ``limit``.
    package static let mostKept = 1024
    package init(limit: Int) { self.limit = limit }

    /// The object `id` when it is kept, else nil.
    package subscript(id: OID) -> (type: ObjectType, bytes: [UInt8])? {
        guard let found = kept[id] else { return nil }
        use(id, found.type, found.bytes)
        return (found.type, found.bytes)
    }

    /// Forgets every object kept.
    package func removeAll() {
        kept.removeAll()
        uses.removeAll()
        oldest = 0
        bytes = 0
    }

    /// Keeps `data` as the bytes of the object `id` of `type`, letting go of the least recently
    /// used objects beyond ``limit`` bytes or ``mostKept`` objects.
    package func keep(_ id: OID, _ type: ObjectType, _ data: [UInt8]) {
        guard data.count <= limit, kept[id] == nil else { return }
        use(id, type, data)
        bytes += data.count
        while kept.count > 1, bytes > limit || kept.count > Self.mostKept, oldest < uses.count {
            let (id, use) = uses[oldest]
            oldest += 1
            guard let entry = kept[id], entry.use == use else { continue }
            kept[id] = nil
            bytes -= entry.bytes.count
        }
    }

    /// Names `id` the most recently used object.
    private func use(_ id: OID, _ type: ObjectType, _ data: [UInt8]) {
        clock += 1
        kept[id] = (type, data, clock)
        uses.append((id, clock))
        if oldest > 4 * Self.mostKept || uses.count - oldest > 4 * Self.mostKept {
            uses = kept.map { (id: $0.key, use: $0.value.use) }.sorted { $0.use < $1.use }
            oldest = 0
        }
    }
}
