internal import Glibc
package import GitFormat

/// A pack (git's pack format, version 2) built from objects Concord chose, each stored whole
/// or as a delta against a base Concord chose (``Delta``), instead of letting libgit2's pack
/// builder search every pair of objects for deltas.
///
/// The pack goes to a temporary file of the pack folder it will be stored in as it is built
/// (``PackOutput``), each entry's CRC-32 computed as it is written and the checksum from what
/// was written, and a large object is compressed and copied piece by piece: memory follows the
/// largest object, not the pack.
///
/// A delta's base is the same path's object in the parent commit. To keep every object quick
/// to read, a line of successive versions is not chained one after the other: the version at
/// position k of a line takes as its base the version at position k with its lowest set bit
/// cleared, so no object is more than log2(versions) deltas away from a whole one, and each
/// delta spans few versions.
package struct PackWriter {
    /// How to read an object's type and bytes when it is needed again as a base.
    package typealias Reader = (OID) throws -> ObjectBytes

    private let output: PackOutput
    /// The CRC-32 of each entry as written, for the index.
    private var crcs: [OID: UInt32] = [:]
    /// The pack's checksum, once finished.
    private var checksum: [UInt8]?
    /// Objects written, in order.
    package private(set) var count = 0
    private var offsets: [OID: Int] = [:]
    /// For each object written as a version of a line: where in the line it is, and the
    /// version before it (its natural base).
    private var lines: [OID: (position: Int, previous: OID)] = [:]
    /// Recent objects' bytes, kept to serve as bases (bounded; read again when evicted).
    private var recent: [OID: [UInt8]] = [:]
    /// The ids in `recent`, oldest first from `recentOldest` (those before it are gone: taking
    /// the oldest out of the front of the array moved every other, 14% of a clone of 200,000
    /// commits, whose small objects fill the bytes kept with some 100,000 ids).
    private var recentOrder: [OID] = []
    private var recentOldest = 0
    private var recentBytes = 0
    private let recentLimit: Int
    /// Whether a delta may name a base outside the pack (one the receiver already has).
    package let thin: Bool
    /// The packs of the repository the objects come from, whose entries are copied as stored
    /// when their delta base is in this pack or (thin) with the receiver.
    private let sources: [StoredPack]
    /// Whether the receiver has an object (for a thin pack's bases).
    private let receiverHas: (OID) -> Bool
    /// How many deltas separate each object from a whole one, for those that are deltas.
    private var depths: [OID: Int] = [:]
    /// The base of each object stored as a delta, made here or copied.
    private var bases: [OID: OID] = [:]
    /// The longest chain of deltas a new delta may make (git's default).
    package static let deepest = 50
    /// The longest chain of deltas a reader follows: git's largest `pack.depth`, so that any
    /// pack git writes can be read; a longer chain, or one that loops, is damage.
    package static let deepestRead = 4095
    /// How much larger than the object it rebuilds a delta's instructions may be.
    package static let deltaOverhead = 1 << 16
    /// Bases named by id, which a pack that is not thin must hold by the time it is finished.
    private var namedBases: Set<OID> = []

    /// A writer whose pack spills into a temporary file of `folder` (the pack folder it is to
    /// be stored in, with a trailing slash) once it is larger than a few megabytes; with no
    /// folder (a pack to send), the pack stays in memory.
    /// - Throws: ``StoreError`` when the header cannot be written.
    package init(
        thin: Bool, copyingFrom sources: [StoredPack] = [], receiverHas: @escaping (OID) -> Bool = { _ in false }, keepingBases recentLimit: Int = 16 << 20,
        spillingInto folder: String?
    ) throws {
        self.thin = thin
        self.sources = sources
        self.receiverHas = receiverHas
        self.recentLimit = recentLimit
        output = PackOutput(spillingInto: folder)
        try output.append(Pack.header(count: 0))
        _ = output.takeCRC()
    }

    /// True when `id` is in the pack.
    package func contains(_ id: OID) -> Bool { offsets[id] != nil }

    /// Adds `id`, read with `read`, as a delta against `previous` (the same path's object in
    /// the parent commit) when that is worth it, else whole. `previous` must be in the pack
    /// already, or (in a thin pack) one the receiver has.
    package mutating func add(_ id: OID, previous: OID?, read: Reader) throws {
        guard offsets[id] == nil else { return }
        let canDelta = previous.map { offsets[$0] != nil || thin } ?? false
        if try copyStored(id, unlessWholeWith: canDelta) { return }
        let object = try read(id)
        let start = output.count
        let isTree = object.type == .tree
        var stored = try appendAsRead(id, object, deltaPossible: canDelta)
        if !stored, let previous, isTree || object.type == .blob, canDelta {
            placeOnALine(previous)
            let position = (lines[previous]?.position ?? 0) + 1
            let base = baseOf(position: position, previous: previous)
            let depth = self.depth(of: base) + 1
            let baseBytes = try bytes(of: base, read: read)
            let delta = object.bytes.withUnsafeBytes { target in
                baseBytes.withUnsafeBytes { Delta.make(from: $0, to: target, tree: isTree) }
            }
            if let delta, depth <= Self.deepest {
                try appendDelta(delta, base: base)
                bases[id] = base
                lines[id] = (position, previous)
                depths[id] = depth
                stored = true
            }
        }
        if !stored { try appendWhole(object.bytes, type: object.type) }
        offsets[id] = start
        crcs[id] = output.takeCRC()
        remember(id, object.bytes)
    }

    /// Copies `id` as one of the source packs stores it, when its delta base is in this pack
    /// or (thin) with the receiver, or it is whole there and is not a wide folder that could
    /// be a delta (`deltaPossible`: each save's pack holds its version of a folder whole, which
    /// would otherwise stay whole in every pack it is copied to); false when it must be read.
    private mutating func copyStored(_ id: OID, unlessWholeWith deltaPossible: Bool) throws -> Bool {
        for source in sources {
            guard let entry = try source.entry(of: id) else { continue }
            let header = try source.header(of: entry)
            if let base = header.base, offsets[base] == nil, !(thin && receiverHas(base)) { return false }
            if Self.isWideFolder(header), deltaPossible { return false }
            let depth = try source.depth(of: entry)
            if depth > 0 { depths[id] = depth }
            try copy(entry, of: source, header: header)
            return true
        }
        return false
    }

    /// Appends the entry `object` was read from (``ObjectBytes/stored``) as it was stored, when
    /// that is as good as what this writer would make: a whole entry that is not a wide folder
    /// that could be a delta (as ``copyStored(_:unlessWholeWith:)`` decides), or a delta whose
    /// base is in this pack, within the depth limit, and was read as the bytes this pack holds
    /// for it (so its instructions rebuild `object` from them). False when `object` must be
    /// encoded anew.
    private mutating func appendAsRead(_ id: OID, _ object: ObjectBytes, deltaPossible: Bool) throws -> Bool {
        guard let stored = object.stored else { return false }
        if let delta = stored.delta {
            let depth = self.depth(of: delta.base) + 1
            guard offsets[delta.base] != nil, depth <= Self.deepest, let held = recent[delta.base], Self.same(held, delta.baseBytes) else { return false }
            try appendDeltaHeader(size: delta.instructions.count, base: delta.base)
            bases[id] = delta.base
            depths[id] = depth
        } else {
            if object.type == .tree, object.bytes.count >= Self.wideFolder, deltaPossible { return false }
            try appendHeader(type: Pack.EntryType(rawValue: object.type.rawValue)!, size: object.bytes.count)
        }
        try output.append(stored.stream)
        return true
    }

    /// True when `a` and `b` hold the same bytes: at once when they share their storage (a
    /// base kept here and read again from the same repository's recent folders), else compared
    /// with `memcmp` (`==` on arrays of bytes compares them one by one).
    private static func same(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.withUnsafeBytes { a in
            b.withUnsafeBytes { b in a.count == b.count && (a.baseAddress == b.baseAddress || a.count == 0 || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0) }
        }
    }

    /// Copies an entry of a stored pack as it is stored (compressed; a delta stays a delta
    /// against the same base, named by its offset here when the base is already in this pack).
    package mutating func copy(_ entry: StoredPack.Entry, of stored: StoredPack, header known: StoredPack.Header? = nil) throws {
        guard offsets[entry.id] == nil else { return }
        let header = try known ?? stored.header(of: entry)
        let start = output.count
        if let base = header.base {
            try appendDeltaHeader(size: header.size, base: base)
            bases[entry.id] = base
        } else {
            guard let type = Pack.EntryType(rawValue: header.type) else { throw PackWriter.malformed(entry.id) }
            try appendHeader(type: type, size: header.size)
        }
        try stored.forEachPiece(of: entry, from: header.data) { try output.append($0) }
        offsets[entry.id] = start
        crcs[entry.id] = output.takeCRC()
    }

    /// The size from which a folder stored whole is worth making a delta of when it is copied
    /// (some 1,600 entries): below it, a whole copy costs little room and reading it costs more.
    package static let wideFolder = 64 << 10

    /// True for a stored entry that holds a wide folder whole.
    package static func isWideFolder(_ header: StoredPack.Header) -> Bool { header.base == nil && header.type == 2 && header.size >= wideFolder }

    /// Bases that deltas name by id and that are not in the pack: a pack that is not thin must
    /// get them (whole) before it is finished.
    package var missingBases: [OID] { namedBases.filter { offsets[$0] == nil }.sorted() }

    /// Adds, whole, the bases that deltas name by id and the pack lacks (for a pack that is not thin).
    package mutating func addMissingBases(read: Reader) throws {
        while let base = missingBases.first { try add(base, previous: nil, read: read) }
    }

    /// Finishes the pack: the count in its header, and the SHA-1 of everything before it at
    /// the end. Call it once, when every object is in.
    /// - Returns: the pack's checksum, its trailer.
    /// - Throws: ``StoreError`` when the pack's file cannot be written or read back.
    @discardableResult
    package mutating func finish() throws -> [UInt8] {
        let made = try output.finish(header: Pack.header(count: count))
        checksum = made
        return made
    }

    /// The finished pack: its bytes when it stayed in memory, else the temporary file that
    /// holds it (``finish()`` first). Call it once.
    func finished() -> (bytes: [UInt8]?, file: TemporaryFile?) { output.take() }

    /// The bytes of a finished pack built in memory (with no folder to spill into): ``finish()``
    /// and take them.
    /// - Throws: ``StoreError`` when the pack cannot be finished.
    package mutating func finishInMemory() throws -> [UInt8] {
        try finish()
        return finished().bytes ?? []
    }

    /// The index (version 2) of the finished pack (``finish()``): the ids in order, the CRC-32
    /// of each entry as written, the offsets, the pack's checksum and the index's own
    /// (``PackIndex/write(_:packChecksum:)``).
    package func index() -> [UInt8] {
        let listings = offsets.map { PackIndex.Listing(id: $0.key, offset: $0.value, crc: crcs[$0.key] ?? 0) }
        return PackIndex.write(listings, packChecksum: checksum ?? [])
    }

    // MARK: Pieces

    /// The version to take as base for the one at `position` of a line whose previous version is
    /// `previous`: the version at `position` with its lowest set bit cleared.
    private func baseOf(position: Int, previous: OID) -> OID {
        let wanted = position & (position - 1)
        var candidate = previous
        while let line = lines[candidate], line.position > wanted { candidate = line.previous }
        return candidate
    }

    /// Places a version copied as stored at the end of a line, with the versions its chain of
    /// deltas passes through, as if this writer had made them: the whole one at 0, the one d
    /// deltas away at 2^d - 1 and the one e deltas away at 2^d - 2^(d-e). The next version then
    /// takes the whole one as its base, and those after it follow the skip list; without it, a
    /// version added on top of a copied one of depth d would have depth d + 1, and each
    /// roll-up or send would make the chain a step longer. Does nothing for a version already
    /// on a line, or whose chain is not all in the pack.
    private mutating func placeOnALine(_ id: OID) {
        let depth = self.depth(of: id)
        guard lines[id] == nil, depth > 0, depth < 62 else { return }
        var chain = [id]
        while chain.count <= depth, let base = bases[chain[chain.count - 1]], offsets[base] != nil { chain.append(base) }
        guard chain.count == depth + 1, bases[chain[depth]] == nil else { return }
        for (index, member) in chain.dropLast().enumerated() {
            lines[member] = (position: (1 << depth) - (1 << index), previous: chain[index + 1])
        }
    }

    /// How many deltas separate `id` from a whole object: as recorded when it was written,
    /// else counted along the bases of the entries copied as stored (a base not in the pack
    /// counts as whole) and remembered; 0 for a whole object.
    private mutating func depth(of id: OID) -> Int {
        var chain: [OID] = []
        var current = id
        while depths[current] == nil, let base = bases[current], chain.count <= Self.deepestRead {
            chain.append(current)
            current = base
        }
        var depth = depths[current] ?? 0
        for member in chain.reversed() {
            depth += 1
            depths[member] = depth
        }
        return depth
    }

    private mutating func bytes(of id: OID, read: Reader) throws -> [UInt8] {
        if let kept = recent[id] { return kept }
        return try read(id).bytes
    }

    private mutating func remember(_ id: OID, _ data: [UInt8]) {
        guard data.count <= recentLimit / 4 else { return }
        recent[id] = data
        recentOrder.append(id)
        recentBytes += data.count
        while recentBytes > recentLimit, recentOldest < recentOrder.count {
            recentBytes -= recent.removeValue(forKey: recentOrder[recentOldest])?.count ?? 0
            recentOldest += 1
        }
        if recentOldest >= 4096, recentOldest * 2 >= recentOrder.count {
            recentOrder.removeFirst(recentOldest)
            recentOldest = 0
        }
    }

    private mutating func appendWhole(_ data: [UInt8], type: ObjectType) throws {
        try appendHeader(type: Pack.EntryType(rawValue: type.rawValue)!, size: data.count)
        try appendCompressed(data, level: Self.compressionLevel(of: type, size: data.count))
    }

    /// The zlib level a whole object is stored with. A folder of a megabyte or more (a flat
    /// folder of some 25,000 documents) is stored uncompressed: libgit2 keeps no delta base
    /// that large in its cache, so every read of a version stored as a delta against it
    /// inflates it again, and folders of ids shrink only to about 60% anyway (at 4 MB, inflating
    /// takes three times as long as copying, and deflating fifteen times). Other large objects
    /// take the fastest level, as do all folders (their entries are mostly ids, which do not
    /// compress: the fastest level stores a folder of 100 files within 0.5% of the default's
    /// size, in half the time); small files and commits the default.
    package static func compressionLevel(of type: ObjectType, size: Int) -> Zlib.Level {
        if type == .tree { return size >= 1 << 20 ? .none : .fastest }
        return size > 65536 ? .fastest : .standard
    }

    private mutating func appendDelta(_ delta: [UInt8], base: OID) throws {
        try appendDeltaHeader(size: delta.count, base: base)
        try appendCompressed(delta, level: delta.count > 65536 ? .fastest : .standard)
    }

    /// A delta entry's header: an offset back to its base when the base is in this pack, else the base's id.
    private mutating func appendDeltaHeader(size: Int, base: OID) throws {
        count += 1
        var header: [UInt8] = []
        if let baseOffset = offsets[base] {
            Pack.appendOffsetDeltaHeader(size: size, distance: output.count - baseOffset, to: &header)
        } else {
            namedBases.insert(base)
            Pack.appendReferenceDeltaHeader(size: size, base: base, to: &header)
        }
        try output.append(header)
    }

    /// An entry's header: its type and uncompressed size.
    private mutating func appendHeader(type: Pack.EntryType, size: Int) throws {
        count += 1
        var header: [UInt8] = []
        Pack.appendEntryHeader(type: type, size: size, to: &header)
        try output.append(header)
    }

    /// Appends `data` compressed: at once when small, else a megabyte at a time with one
    /// stream (``Zlib/Deflater``), so that no compressed copy of a large object is held.
    private mutating func appendCompressed(_ data: [UInt8], level: Zlib.Level) throws {
        try data.withUnsafeBytes { data in
            var compressed: [UInt8] = []
            guard data.count > Self.piece else {
                try readingFormat { try Zlib.deflate(data, level: level, appendingTo: &compressed) }
                try output.append(compressed)
                return
            }
            let deflater = try readingFormat { try Zlib.Deflater(level: level) }
            var start = 0
            while start < data.count {
                let end = min(start + Self.piece, data.count)
                try readingFormat { try deflater.deflate(UnsafeRawBufferPointer(rebasing: data[start..<end]), finish: end == data.count, appendingTo: &compressed) }
                try output.append(compressed)
                compressed.removeAll(keepingCapacity: true)
                start = end
            }
        }
    }

    /// The most bytes compressed or copied at once.
    static let piece = 1 << 20

    private static func malformed(_ id: OID) -> StoreError {
        StoreError(FormatError(.pack, "the stored entry of \(id.hex) has no type git writes"))
    }
}
