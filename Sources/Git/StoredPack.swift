internal import CGit2
internal import Foundation
internal import Glibc

/// A pack of the object database read through its index, so that its entries can be copied
/// into another pack as they are stored (compressed, deltas included) instead of being unpacked
/// and searched for deltas again (git's pack reuse). Both files are mapped read-only, as libgit2
/// maps packs: git writes a pack once, under a name that is its checksum, and a pack removed
/// stays mapped. A large entry is read from the file instead, so that what it held does not
/// stay counted in the process's memory.
final class StoredPack {
    /// One stored entry: its number in the index, where it starts and ends in the pack, its id.
    struct Entry {
        var number: Int
        var id: OID
        var start: Int
        var end: Int
    }

    /// What an entry's header says.
    struct Header {
        /// git's pack numbering: 1–4 whole objects, 6 and 7 deltas.
        var type: UInt8
        /// The size of the entry's unpacked data (for a delta, of the delta).
        var size: Int
        /// A delta's base.
        var base: OID?
        /// Where the compressed data starts.
        var data: Int
    }

    private let path: String
    /// The index file.
    private let index: UnsafeRawBufferPointer
    /// The pack file.
    private let pack: UnsafeRawBufferPointer
    private let descriptor: Int32
    private var packSize: Int { pack.count }
    /// The number of objects.
    let count: Int
    /// The entries in the order they are stored (git's reverse index), each one integer: its
    /// offset above its number (``Order``). Made at the first question that needs it.
    private var order: Order?
    private var depths: [Int: Int] = [:]

    /// Opens `stem.pack` through `stem.idx` (index version 2).
    /// - Throws: ``GitError`` when either cannot be read or does not hold what the other says.
    init(stem: String) throws {
        path = stem + ".pack"
        guard let index = Self.map(stem + ".idx") else { throw Self.damaged(stem + ".idx") }
        let header = 8 + 256 * 4
        let count = index.count >= header ? Self.word(in: index, at: header - 4) : 0
        guard index.count >= header + count * 28 + 40, index.prefix(8).elementsEqual([0xFF, 0x74, 0x4F, 0x63, 0, 0, 0, 2]) else {
            munmap(UnsafeMutableRawPointer(mutating: index.baseAddress), index.count)
            throw Self.damaged(stem + ".idx")
        }
        descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0, let pack = Self.map(descriptor), pack.count >= 32 else {
            if descriptor >= 0 { close(descriptor) }
            munmap(UnsafeMutableRawPointer(mutating: index.baseAddress), index.count)
            throw Self.damaged(path)
        }
        self.index = index
        self.pack = pack
        self.count = count
    }

    deinit {
        close(descriptor)
        munmap(UnsafeMutableRawPointer(mutating: pack.baseAddress), pack.count)
        munmap(UnsafeMutableRawPointer(mutating: index.baseAddress), index.count)
    }

    /// Every entry, in the order they are stored.
    var entries: [Entry] {
        get throws {
            let order = try storedOrder()
            return try order.keys.indices.map { try entry(storedAt: $0, in: order) }
        }
    }

    /// The entry of `id`, nil when the pack does not hold it.
    func entry(of id: OID) throws -> Entry? {
        guard let number = number(of: id) else { return nil }
        let stored = try storedOrder()
        guard let position = stored.position(ofOffset: offset(of: number)) else { throw Self.damaged(path) }
        return try entry(storedAt: position, in: stored)
    }

    /// True when the pack's index lists `id` (its entries are not ordered for this).
    func contains(_ id: OID) -> Bool { number(of: id) != nil }

    /// The number of `id` in the index: a binary search among the ids of its first byte.
    private func number(of id: OID) -> Int? {
        let first = id.withUnsafeBytes { Int($0[0]) }
        var low = first == 0 ? 0 : word(8 + (first - 1) * 4), high = word(8 + first * 4)
        while low < high {
            let middle = (low + high) / 2
            let at = 8 + 256 * 4 + middle * 20
            let order = id.withUnsafeBytes { memcmp($0.baseAddress!, index.baseAddress! + at, 20) }
            if order == 0 { return middle }
            if order < 0 { high = middle } else { low = middle + 1 }
        }
        return nil
    }

    /// The entry's stored bytes from `start` to its end.
    func bytes(of entry: Entry, from start: Int) throws -> [UInt8] {
        try read(start, entry.end - start)
    }

    /// The entry's data inflated (a whole object's bytes, or a delta's instructions) with the
    /// compressed data it was inflated from, as read (a copy, not the mapping): copying
    /// `stream` into another pack stores exactly the `data` that was read, even if the file
    /// changes meanwhile. nil when the data does not inflate to the size its header says, or
    /// the header says more than a stream of its length could hold (zlib shrinks at most about
    /// a thousandfold).
    func contents(_ entry: Entry, header: Header) throws -> (stream: [UInt8], data: [UInt8])? {
        let stream = try bytes(of: entry, from: header.data)
        guard header.size <= stream.count * 1100 + 64 else { return nil }
        var complete = false
        // zlib writes every byte, or the output is dropped.
        let output = [UInt8](unsafeUninitializedCapacity: header.size) { target, initialized in
            var length = uLongf(header.size), consumed = uLong(stream.count)
            let status = stream.withUnsafeBytes { source in
                uncompress2(target.baseAddress, &length, source.baseAddress?.assumingMemoryBound(to: Bytef.self), &consumed)
            }
            complete = status == Z_OK && Int(length) == header.size
            initialized = complete ? header.size : 0
        }
        return complete ? (stream, output) : nil
    }

    /// What `entry`'s header says.
    func header(of entry: Entry) throws -> Header {
        let head = try read(entry.start, min(entry.end - entry.start, 32))
        var at = 0
        func next() throws -> UInt8 {
            guard at < head.count else { throw Self.damaged(path) }
            defer { at += 1 }
            return head[at]
        }
        var byte = try next()
        let type = (byte >> 4) & 7
        var size = Int(byte & 0x0F)
        var shift = 4
        while byte & 0x80 != 0, shift < 57 {
            byte = try next()
            size |= Int(byte & 0x7F) << shift
            shift += 7
        }
        switch type {
        case 6:
            byte = try next()
            var distance = Int(byte & 0x7F)
            while byte & 0x80 != 0, distance < 1 << 50 {
                byte = try next()
                distance = ((distance + 1) << 7) | Int(byte & 0x7F)
            }
            guard let base = try idOfEntry(at: entry.start - distance) else { throw Self.damaged(path) }
            return Header(type: type, size: size, base: base, data: entry.start + at)
        case 7:
            guard at + 20 <= head.count, let base = OID(bytes: head[at..<(at + 20)]) else { throw Self.damaged(path) }
            return Header(type: type, size: size, base: base, data: entry.start + at + 20)
        case 1...4:
            return Header(type: type, size: size, base: nil, data: entry.start + at)
        default:
            throw Self.damaged(path)
        }
    }

    /// How many deltas separate `entry` from a whole object (0 for a whole one).
    func depth(of entry: Entry) throws -> Int {
        if let known = depths[entry.start] { return known }
        var depth = 0
        if let base = try header(of: entry).base {
            depth = 1 + (try self.entry(of: base).map(depth(of:)) ?? 0)
        }
        depths[entry.start] = depth
        return depth
    }

    // MARK: Pieces

    private func storedOrder() throws -> Order {
        if let order { return order }
        guard let made = Order(offsets: (0..<count).lazy.map(offset(of:)), count: count) else { throw Self.damaged(path) }
        order = made
        return made
    }

    private func entry(storedAt position: Int, in order: Order) throws -> Entry {
        let start = order.offset(at: position), number = order.number(at: position)
        let end = position + 1 < order.keys.count ? order.offset(at: position + 1) : packSize - 20
        guard start >= 12, start < end else { throw Self.damaged(path) }
        return Entry(number: number, id: id(of: number), start: start, end: end)
    }

    private func idOfEntry(at offset: Int) throws -> OID? {
        let order = try storedOrder()
        return order.position(ofOffset: offset).map { id(of: order.number(at: $0)) }
    }

    private func id(of number: Int) -> OID {
        let at = 8 + 256 * 4 + number * 20
        return OID(bytes: UnsafeRawBufferPointer(rebasing: index[at..<(at + 20)]))!
    }

    private func offset(of number: Int) -> Int {
        let offsets = 8 + 256 * 4 + count * 24
        let value = word(offsets + number * 4)
        guard value & 0x8000_0000 != 0 else { return value }
        let at = offsets + count * 4 + (value & 0x7FFF_FFFF) * 8
        guard index.count >= at + 8 else { return -1 }
        return word(at) << 32 | word(at + 4)
    }

    private func word(_ at: Int) -> Int { Self.word(in: index, at: at) }

    private static func word(in bytes: UnsafeRawBufferPointer, at: Int) -> Int {
        Int(UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self)))
    }

    /// The file at `path` mapped read-only; nil when it cannot be opened or is empty.
    private static func map(_ path: String) -> UnsafeRawBufferPointer? {
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        return map(descriptor)
    }

    /// The open file `descriptor` mapped read-only; nil when it is empty or cannot be mapped.
    private static func map(_ descriptor: Int32) -> UnsafeRawBufferPointer? {
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_size > 0 else { return nil }
        let size = Int(status.st_size)
        guard let start = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), start != MAP_FAILED else { return nil }
        return UnsafeRawBufferPointer(start: start, count: size)
    }

    private func read(_ start: Int, _ count: Int) throws -> [UInt8] {
        guard start >= 0, count >= 0, start + count <= packSize else { throw Self.damaged(path) }
        guard count >= Self.readFromFile else { return Array(UnsafeRawBufferPointer(rebasing: pack[start..<(start + count)])) }
        var buffer = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + done, count - done, off_t(start + done)) }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { throw Self.damaged(path) }
            done += got
        }
        return buffer
    }

    /// The size from which an entry is read from the file rather than from its mapping: the
    /// pages of a mapping that were read count in the process's resident memory until it is
    /// unmapped (read from the mapping, the versions of a folder of 100,000 took a sync's peak
    /// from 134 to 152 MB).
    static let readFromFile = 256 << 10

    private static func damaged(_ what: String) -> GitError {
        GitError(errorClass: Int32(GIT_ERROR_ODB.rawValue), message: "cannot copy from \(what): it is damaged", function: "StoredPack")
    }
}

extension StoredPack {
    /// A pack's entries in the order of their offsets: each entry one integer, its offset above
    /// its number, so that the order is one array of integers, sorted by a radix sort over the
    /// offsets' bits only (11 bits a pass: a pack of 100,000 objects in 30 MB takes three passes,
    /// with counts that fit the processor's first cache), and a place is found from an offset
    /// by a binary search.
    struct Order {
        /// The entries, by offset.
        let keys: [UInt64]
        /// How many low bits of a key hold the entry's number.
        let numberBits: Int

        /// The order of `count` entries whose offsets, in the order of their numbers, are
        /// `offsets`; nil when an offset is negative or too large to share a word with a number
        /// (a pack of some 10⁸ objects and 10¹¹ bytes).
        init?(offsets: some Sequence<Int>, count: Int) {
            numberBits = max(2, Int.bitWidth - count.leadingZeroBitCount)  // 2 at least: offsets stay below 2^62, an Int
            let limit = 1 << (64 - numberBits)
            var keys: [UInt64] = []
            keys.reserveCapacity(count)
            var largest = 0
            for (number, offset) in offsets.enumerated() {
                guard offset >= 0, offset < limit else { return nil }
                largest = max(largest, offset)
                keys.append(UInt64(offset) << UInt64(numberBits) | UInt64(number))
            }
            if keys.count < 1024 {
                keys.sort()
            } else {
                Self.radixSort(&keys, from: numberBits, through: numberBits + (Int.bitWidth - largest.leadingZeroBitCount))
            }
            self.keys = keys
        }

        /// The offset of the entry at `position`.
        func offset(at position: Int) -> Int { Int(keys[position] >> UInt64(numberBits)) }

        /// The number of the entry at `position`.
        func number(at position: Int) -> Int { Int(keys[position] & (1 << UInt64(numberBits) - 1)) }

        /// The place of the entry that starts at `offset`; nil when none does.
        func position(ofOffset offset: Int) -> Int? {
            guard offset >= 0, offset < 1 << (64 - numberBits) else { return nil }
            let key = UInt64(offset) << UInt64(numberBits)
            var low = 0, high = keys.count
            while low < high {
                let middle = (low + high) / 2
                if keys[middle] < key { low = middle + 1 } else { high = middle }
            }
            return low < keys.count && self.offset(at: low) == offset ? low : nil
        }

        /// Sorts `keys` by their bits from `low` up to (not including) `high`, least significant
        /// digit first, 11 bits a pass.
        private static func radixSort(_ keys: inout [UInt64], from low: Int, through high: Int) {
            let digitBits = 11, mask = UInt64(1 << digitBits - 1)
            var other = [UInt64](repeating: 0, count: keys.count)
            var counts = [Int](repeating: 0, count: 1 << digitBits)
            var shift = low
            while shift < high {
                keys.withUnsafeBufferPointer { source in
                    other.withUnsafeMutableBufferPointer { target in
                        counts.withUnsafeMutableBufferPointer { counts in
                            counts.update(repeating: 0)
                            for key in source { counts[Int((key >> UInt64(shift)) & mask)] += 1 }
                            var total = 0
                            for digit in counts.indices {
                                let count = counts[digit]
                                counts[digit] = total
                                total += count
                            }
                            for key in source {
                                let digit = Int((key >> UInt64(shift)) & mask)
                                target[counts[digit]] = key
                                counts[digit] += 1
                            }
                        }
                    }
                }
                swap(&keys, &other)
                shift += digitBits
            }
        }
    }
}
