internal import CGit2
internal import GitFormat

/// A pack (git's pack format, version 2) built in memory from objects Concord chose, each
/// stored whole or as a delta against a base Concord chose (``Delta``), instead of letting
/// libgit2's pack builder search every pair of objects for deltas.
///
/// A delta's base is the same path's object in the parent commit. To keep every object quick
/// to read, a line of successive versions is not chained one after the other: the version at
/// position k of a line takes as its base the version at position k with its lowest set bit
/// cleared, so no object is more than log2(versions) deltas away from a whole one, and each
/// delta spans few versions.
struct PackWriter {
    /// How to read an object's type and bytes when it is needed again as a base.
    typealias Reader = (OID) throws -> ObjectBytes

    private var bytes: [UInt8] = Array("PACK".utf8) + [0, 0, 0, 2, 0, 0, 0, 0]
    /// Objects written, in order.
    private(set) var count = 0
    private var offsets: [OID: Int] = [:]
    /// For each object written as a version of a line: where in the line it is, and the
    /// version before it (its natural base).
    private var lines: [OID: (position: Int, previous: OID)] = [:]
    /// Recent objects' bytes, kept to serve as bases (bounded; read again when evicted).
    private var recent: [OID: [UInt8]] = [:]
    private var recentOrder: [OID] = []
    private var recentBytes = 0
    private let recentLimit: Int
    /// Whether a delta may name a base outside the pack (one the receiver already has).
    let thin: Bool
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
    static let deepest = 50
    /// The longest chain of deltas a reader follows: git's largest `pack.depth`, so that any
    /// pack git writes can be read; a longer chain, or one that loops, is damage.
    static let deepestRead = 4095
    /// Bases named by id, which a pack that is not thin must hold by the time it is finished.
    private var namedBases: Set<OID> = []

    init(thin: Bool, copyingFrom sources: [StoredPack] = [], receiverHas: @escaping (OID) -> Bool = { _ in false }, keepingBases recentLimit: Int = 16 << 20) {
        self.thin = thin
        self.sources = sources
        self.receiverHas = receiverHas
        self.recentLimit = recentLimit
    }

    /// True when `id` is in the pack.
    func contains(_ id: OID) -> Bool { offsets[id] != nil }

    /// Adds `id`, read with `read`, as a delta against `previous` (the same path's object in
    /// the parent commit) when that is worth it, else whole. `previous` must be in the pack
    /// already, or (in a thin pack) one the receiver has.
    mutating func add(_ id: OID, previous: OID?, read: Reader) throws {
        guard offsets[id] == nil else { return }
        let canDelta = previous.map { offsets[$0] != nil || thin } ?? false
        if try copyStored(id, unlessWholeWith: canDelta) { return }
        let object = try read(id)
        let start = bytes.count
        let isTree = object.type == GIT_OBJECT_TREE
        var stored = appendAsRead(id, object, deltaPossible: canDelta)
        if !stored, let previous, isTree || object.type == GIT_OBJECT_BLOB, canDelta {
            placeOnALine(previous)
            let position = (lines[previous]?.position ?? 0) + 1
            let base = baseOf(position: position, previous: previous)
            let depth = (depths[base] ?? 0) + 1
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
    private mutating func appendAsRead(_ id: OID, _ object: ObjectBytes, deltaPossible: Bool) -> Bool {
        guard let stored = object.stored else { return false }
        if let delta = stored.delta {
            let depth = (depths[delta.base] ?? 0) + 1
            guard offsets[delta.base] != nil, depth <= Self.deepest, let held = recent[delta.base], Self.same(held, delta.baseBytes) else { return false }
            appendDeltaHeader(size: delta.instructions.count, base: delta.base)
            bases[id] = delta.base
            depths[id] = depth
        } else {
            if object.type == GIT_OBJECT_TREE, object.bytes.count >= Self.wideFolder, deltaPossible { return false }
            appendHeader(type: UInt8(object.type.rawValue), size: object.bytes.count)
        }
        bytes.append(contentsOf: stored.stream)
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
    mutating func copy(_ entry: StoredPack.Entry, of stored: StoredPack, header known: StoredPack.Header? = nil) throws {
        guard offsets[entry.id] == nil else { return }
        let header = try known ?? stored.header(of: entry)
        let start = bytes.count
        if let base = header.base {
            appendDeltaHeader(size: header.size, base: base)
            bases[entry.id] = base
        } else {
            appendHeader(type: header.type, size: header.size)
        }
        bytes.append(contentsOf: try stored.bytes(of: entry, from: header.data))
        offsets[entry.id] = start
    }

    /// The size from which a folder stored whole is worth making a delta of when it is copied
    /// (some 1,600 entries): below it, a whole copy costs little room and reading it costs more.
    static let wideFolder = 64 << 10

    /// True for a stored entry that holds a wide folder whole.
    static func isWideFolder(_ header: StoredPack.Header) -> Bool { header.base == nil && header.type == 2 && header.size >= wideFolder }

    /// Bases that deltas name by id and that are not in the pack: a pack that is not thin must
    /// get them (whole) before it is finished.
    var missingBases: [OID] { namedBases.filter { offsets[$0] == nil }.sorted() }

    /// Adds, whole, the bases that deltas name by id and the pack lacks (for a pack that is not thin).
    mutating func addMissingBases(read: Reader) throws {
        while let base = missingBases.first { try add(base, previous: nil, read: read) }
    }

    /// The pack's bytes: the count in the header, and the SHA-1 of everything before it at the
    /// end. Call it once, when every object is in.
    mutating func finish() throws -> [UInt8] {
        for index in 0..<4 { bytes[8 + index] = UInt8((count >> (8 * (3 - index))) & 0xFF) }
        bytes += Self.sha1(bytes)
        return bytes
    }

    /// The index (version 2) of `pack`, the bytes ``finish()`` returned: the ids in order, the
    /// CRC-32 of each entry as stored, the offsets, the pack's checksum and the index's own.
    func index(of pack: [UInt8]) throws -> [UInt8] {
        let byStart = offsets.sorted { $0.value < $1.value }
        var crcs: [OID: UInt32] = [:]
        pack.withUnsafeBytes { buffer in
            for (number, entry) in byStart.enumerated() {
                let end = number + 1 < byStart.count ? byStart[number + 1].value : pack.count - 20
                let start = buffer.baseAddress!.advanced(by: entry.value).assumingMemoryBound(to: Bytef.self)
                crcs[entry.key] = UInt32(crc32(0, start, uInt(end - entry.value)))
            }
        }
        let ids = offsets.keys.sorted()
        var index: [UInt8] = [0xFF, 0x74, 0x4F, 0x63, 0, 0, 0, 2]
        func word(_ value: UInt32) { for shift in [24, 16, 8, 0] { index.append(UInt8((value >> UInt32(shift)) & 0xFF)) } }
        var fanout = [UInt32](repeating: 0, count: 256)
        for id in ids { fanout[id.withUnsafeBytes { Int($0[0]) }] += 1 }
        var total: UInt32 = 0
        for byte in 0..<256 {
            total += fanout[byte]
            word(total)
        }
        for id in ids { id.withUnsafeBytes { index.append(contentsOf: $0) } }
        for id in ids { word(crcs[id]!) }
        var large: [Int] = []
        for id in ids {
            let offset = offsets[id]!
            if offset < 0x8000_0000 {
                word(UInt32(offset))
            } else {
                word(0x8000_0000 | UInt32(large.count))
                large.append(offset)
            }
        }
        for offset in large {
            word(UInt32(offset >> 32))
            word(UInt32(offset & 0xFFFF_FFFF))
        }
        index += pack[(pack.count - 20)...]  // the checksum (suffix(_:) here resolved to Sequence's, a walk over the whole pack)
        return index + Self.sha1(index)
    }

    /// The SHA-1 of `bytes` (``SHA1``).
    static func sha1(_ bytes: [UInt8]) -> [UInt8] { SHA1.digest(bytes) }

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
        guard lines[id] == nil, let depth = depths[id], depth > 0, depth < 62 else { return }
        var chain = [id]
        while chain.count <= depth, let base = bases[chain[chain.count - 1]], offsets[base] != nil { chain.append(base) }
        guard chain.count == depth + 1, bases[chain[depth]] == nil else { return }
        for (index, member) in chain.dropLast().enumerated() {
            lines[member] = (position: (1 << depth) - (1 << index), previous: chain[index + 1])
        }
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
        while recentBytes > recentLimit, !recentOrder.isEmpty {
            let oldest = recentOrder.removeFirst()
            recentBytes -= recent.removeValue(forKey: oldest)?.count ?? 0
        }
    }

    private mutating func appendWhole(_ data: [UInt8], type: git_object_t) throws {
        appendHeader(type: UInt8(type.rawValue), size: data.count)
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
    static func compressionLevel(of type: git_object_t, size: Int) -> Int32 {
        if type == GIT_OBJECT_TREE { return size >= 1 << 20 ? Z_NO_COMPRESSION : Z_BEST_SPEED }
        return size > 65536 ? Z_BEST_SPEED : Z_DEFAULT_COMPRESSION
    }

    private mutating func appendDelta(_ delta: [UInt8], base: OID) throws {
        appendDeltaHeader(size: delta.count, base: base)
        try appendCompressed(delta, level: delta.count > 65536 ? Z_BEST_SPEED : Z_DEFAULT_COMPRESSION)
    }

    /// A delta entry's header: an offset back to its base when the base is in this pack, else the base's id.
    private mutating func appendDeltaHeader(size: Int, base: OID) {
        if let baseOffset = offsets[base] {
            let start = bytes.count
            appendHeader(type: 6, size: size)  // OFS_DELTA
            var distance = start - baseOffset
            var encoded = [UInt8(distance & 0x7F)]
            distance >>= 7
            while distance > 0 {
                distance -= 1
                encoded.append(0x80 | UInt8(distance & 0x7F))
                distance >>= 7
            }
            bytes.append(contentsOf: encoded.reversed())
        } else {
            namedBases.insert(base)
            appendHeader(type: 7, size: size)  // REF_DELTA
            withUnsafeBytes(of: base.raw.id) { bytes.append(contentsOf: $0) }
        }
    }

    /// An entry's header: its type and uncompressed size, seven bits a byte after the first four.
    private mutating func appendHeader(type: UInt8, size: Int) {
        count += 1
        var size = size
        var byte = (type << 4) | UInt8(size & 0x0F)
        size >>= 4
        while size > 0 {
            bytes.append(byte | 0x80)
            byte = UInt8(size & 0x7F)
            size >>= 7
        }
        bytes.append(byte)
    }

    /// Appends `data` deflated at `level`, with a window and tables no wider than it needs:
    /// zlib sets up and clears memory for its default window (its hash table alone is 64 KB)
    /// before each stream, which was most of the cost of deflating the small objects of a
    /// commit (a few kilobytes each). The window is the smallest that holds `data` (the
    /// header says so), the hash table has as many heads as the window has bytes and the
    /// buffer of pending symbols half as many, in the proportions of zlib's defaults.
    private mutating func appendCompressed(_ data: [UInt8], level: Int32) throws {
        var windowBits: Int32 = 9
        while windowBits < 15, (1 << windowBits) - 262 < data.count { windowBits += 1 }  // 262: zlib's MIN_LOOKAHEAD
        let memoryLevel = windowBits - 7  // zlib's memLevel: 2^(memLevel + 7) heads, 2^(memLevel + 6) pending symbols
        var stream = z_stream()
        let initialized = deflateInit2_(
            &stream, level, Z_DEFLATED, windowBits, memoryLevel, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard initialized == Z_OK else { throw Self.compressionFailed(initialized, "deflateInit2_") }
        defer { deflateEnd(&stream) }
        let bound = Int(deflateBound(&stream, uLong(data.count)))
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: bound))
        let status = bytes.withUnsafeMutableBytes { buffer in
            data.withUnsafeBytes { input in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
                stream.avail_in = uInt(input.count)
                stream.next_out = buffer.baseAddress!.advanced(by: start).assumingMemoryBound(to: Bytef.self)
                stream.avail_out = uInt(bound)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { throw Self.compressionFailed(status, "deflate") }
        bytes.removeLast(bound - Int(stream.total_out))
    }

    private static func compressionFailed(_ status: Int32, _ function: String) -> GitError {
        GitError(message: "cannot compress an object (zlib error \(status))", function: function)
    }
}
