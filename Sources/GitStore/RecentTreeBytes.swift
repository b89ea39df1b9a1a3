package import GitFormat
/// The bytes of the folders read last, kept by their owner (a repository), so that a
/// version of a folder stored as a delta against one of them is rebuilt from it with one
/// delta, and a folder compared twice in a row is read once.
///
/// libgit2 keeps no delta base over 1 MB (a flat folder of 25,000 documents): each version of
/// a wide folder read through it rebuilds its whole chain of deltas from a whole copy.
package final class RecentTreeBytes {
    private var kept: [OID: [UInt8]] = [:]
    /// Least recently used first.
    private var order: [OID] = []
    private var bytes = 0
    /// The most bytes kept; a folder larger than this is not kept at all.
    package let limit: Int
    /// The most folders kept: the bases a line of versions is rebuilt from (a version's base is
    /// at most log2(versions) steps back, ``PackWriter``), and the narrow folders a sync reads
    /// more than once (the fetch, the arrival check, the integration and the roll-up each read
    /// the folders that changed: some 600 of 4 KB in a sync of 200 commits), within ``limit``.
    package static let mostKept = 1024
    package init(limit: Int) { self.limit = limit }

    /// The bytes of the folder `id` when they are kept, else nil.
    package subscript(id: OID) -> [UInt8]? {
        guard let found = kept[id] else { return nil }
        if let index = order.lastIndex(of: id), index != order.count - 1 {
            order.remove(at: index)
            order.append(id)
        }
        return found
    }

    /// Forgets every folder kept.
    package func removeAll() {
        kept.removeAll()
        order.removeAll()
        bytes = 0
    }

    /// Keeps `data` as the bytes of the folder `id`.
    package func keep(_ id: OID, _ data: [UInt8]) {
        guard data.count <= limit, kept.updateValue(data, forKey: id) == nil else { return }
        order.append(id)
        bytes += data.count
        while order.count > 1, bytes > limit || order.count > Self.mostKept {
            bytes -= kept.removeValue(forKey: order.removeFirst())?.count ?? 0
        }
    }
}
