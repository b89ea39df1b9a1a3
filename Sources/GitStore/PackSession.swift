package import GitFormat

/// The objects written inside one ``ObjectStore/writingOnePack(streamingAbove:flushingAt:_:)``
/// call, held in memory and stored as one pack, synced once, before anything names them
/// (instead of one synced file per object). A blob larger than ``streamingAbove`` goes to disk
/// directly, and the pack is stored whenever the blobs held reach ``flushingAt`` bytes, so
/// memory stays bounded.
package final class PackSession {
    /// The objects written so far, by id.
    package private(set) var objects: [OID: ObjectBytes] = [:]
    /// Their ids in the order they were written.
    private(set) var order: [OID] = []
    /// Bytes of blob content held.
    private(set) var blobBytes = 0
    /// Blobs larger than this go to disk directly.
    package let streamingAbove: Int
    /// The pack is stored when the blobs held reach this many bytes.
    package let flushingAt: Int

    init(streamingAbove: Int, flushingAt: Int) {
        self.streamingAbove = streamingAbove
        self.flushingAt = flushingAt
    }

    /// Holds `object` under `id`.
    func add(_ id: OID, _ object: ObjectBytes) {
        guard objects.updateValue(object, forKey: id) == nil else { return }
        order.append(id)
        if object.type == .blob { blobBytes += object.bytes.count }
    }

    /// True when the blobs held call for storing the pack now.
    var isFull: Bool { blobBytes >= flushingAt }

    /// Forgets what was held, once stored.
    func clear() {
        objects = [:]
        order = []
        blobBytes = 0
    }
}
