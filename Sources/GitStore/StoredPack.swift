internal import FoundationEssentials
internal import Glibc
package import GitFormat

/// A pack of an object database read through its index, with Concord's own reader: entries
/// are copied into another pack as they are stored (compressed, deltas included) instead of
/// being unpacked and searched for deltas again (git's pack reuse), and a cloud's objects are
/// read without libgit2 (``ObjectStore``).
///
/// Nothing is trusted before it is checked: both files are opened only as regular files
/// (``RegularFile``), the index is checked whole when opened (``PackIndex``), the pack's header
/// and trailer against it (``Pack/validate(_:against:)``), each offset and entry header when
/// read, and each size against a limit before anything is inflated. A damaged pack is an
/// error, never a crash. Both files are mapped read-only, as libgit2 maps packs: git writes a
/// pack once, under a name that is its checksum, and a pack removed stays mapped. A large entry
/// is read from the file instead, so that what it held does not stay counted in the process's
/// memory.
package final class StoredPack {
    /// One stored entry: its number in the index, where it starts and ends in the pack, its id.
    package struct Entry {
        package var number: Int
        package var id: OID
        package var start: Int
        package var end: Int
    }

    /// What an entry's header says.
    package struct Header {
        /// git's pack numbering: 1–4 whole objects, 6 and 7 deltas.
        package var type: UInt8
        /// The size of the entry's unpacked data (for a delta, of the delta).
        package var size: Int
        /// A delta's base.
        package var base: OID?
        /// Where the compressed data starts.
        package var data: Int
    }

    /// The pack file's path.
    package let path: String
    /// The index, checked.
    private let index: PackIndex
    /// The index file's mapping, which `index` reads.
    private let indexBytes: UnsafeRawBufferPointer
    /// The pack file.
    private let pack: UnsafeRawBufferPointer
    private let descriptor: Int32
    private var packSize: Int { pack.count }
    /// The number of objects.
    package var count: Int { index.count }
    /// The entries in the order they are stored (git's reverse index), each one integer: its
    /// offset above its number (``Order``). Made at the first question that needs it.
    private var order: Order?
    private var depths: [Int: Int] = [:]

    /// Opens `stem.pack` through `stem.idx`.
    /// - Throws: ``StoreError`` when either is not a regular file, cannot be read, or does not
    ///   hold what the other says.
    package init(stem: String) throws {
        path = stem + ".pack"
        let indexPath = stem + ".idx"
        let indexFile = try RegularFile.open(indexPath)
        defer { close(indexFile.descriptor) }
        guard let indexBytes = try RegularFile.map(indexFile, path: indexPath) else {
            throw StoreError(FormatError(.packIndex, "it is empty"), file: indexPath)
        }
        var packFile: RegularFile.Opened?
        var packBytes: UnsafeRawBufferPointer?
        do {
            let index = try readingFormat(file: indexPath) { try PackIndex(validating: indexBytes) }
            let opened = try RegularFile.open(path)
            packFile = opened
            guard let mapped = try RegularFile.map(opened, path: path) else { throw StoreError(FormatError(.pack, "it is empty"), file: path) }
            packBytes = mapped
            try readingFormat(file: path) { try Pack.validate(mapped, against: index) }
            self.index = index
            self.indexBytes = indexBytes
            pack = mapped
            descriptor = opened.descriptor
        } catch {
            if let packBytes { munmap(UnsafeMutableRawPointer(mutating: packBytes.baseAddress), packBytes.count) }
            if let packFile { close(packFile.descriptor) }
            munmap(UnsafeMutableRawPointer(mutating: indexBytes.baseAddress), indexBytes.count)
            throw error
        }
    }

    deinit {
        close(descriptor)
        munmap(UnsafeMutableRawPointer(mutating: pack.baseAddress), pack.count)
        munmap(UnsafeMutableRawPointer(mutating: indexBytes.baseAddress), indexBytes.count)
    }

    /// Every entry, in the order they are stored.
    package var entries: [Entry] {
        get throws {
            let order = try storedOrder()
            return try order.keys.indices.map { try entry(storedAt: $0, in: order) }
        }
    }

    /// The entry of `id`, nil when the pack does not hold it.
    /// - Throws: ``StoreError`` when the index gives it an offset outside the pack.
    package func entry(of id: OID) throws -> Entry? {
        guard let number = index.number(of: id) else { return nil }
        let stored = try storedOrder()
        let offset = try readingFormat(file: path) { try index.offset(at: number, packSize: packSize) }
        guard let position = stored.position(ofOffset: offset) else { throw damaged("object \(id.hex) has no entry") }
        return try entry(storedAt: position, in: stored)
    }

    /// True when the pack's index lists `id` (its entries are not ordered for this).
    package func contains(_ id: OID) -> Bool { index.number(of: id) != nil }

    /// The entry's stored bytes from `start` to its end.
    package func bytes(of entry: Entry, from start: Int) throws -> [UInt8] {
        try read(start, entry.end - start)
    }

    /// Hands `body` the entry's stored bytes from `start` to its end, in pieces of at most a
    /// megabyte, each read from the file when the entry is large (``readFromFile``), its last
    /// piece too.
    /// - Throws: ``StoreError`` when the entry runs past the pack, or what `body` throws.
    package func forEachPiece(of entry: Entry, from start: Int, _ body: ([UInt8]) throws -> Void) throws {
        let fromFile = entry.end - start >= Self.readFromFile
        var offset = start
        repeat {
            let count = min(entry.end - offset, PackWriter.piece)
            try body(try read(offset, count, fromFile: fromFile))
            offset += count
        } while offset < entry.end
    }

    /// The entry's data inflated (a whole object's bytes, or a delta's instructions) with the
    /// compressed data it was inflated from, as read (a copy, not the mapping, and no byte past
    /// the end of the compressed data): copying `stream` into another pack stores exactly the
    /// `data` that was read, even if the file changes meanwhile.
    /// - Throws: ``StoreError`` when the header gives more than `largest` bytes (checked before
    ///   anything is inflated), or the data does not inflate to exactly the size it gives.
    package func contents(_ entry: Entry, header: Header, largest: Int) throws -> (stream: [UInt8], data: [UInt8]) {
        guard header.size <= largest else {
            throw StoreError(.overLimit, "object \(entry.id.hex) \(StoreError.overLimit(header.size, largest))")
        }
        let stream = try bytes(of: entry, from: header.data)
        let (data, consumed) = try stream.withUnsafeBytes { buffer in
            try readingFormat(file: path) { try Zlib.inflate(buffer, size: header.size) }
        }
        return (consumed == stream.count ? stream : Array(stream[..<consumed]), data)
    }

    /// The first `count` bytes of the entry's data inflated (all of it when it is shorter): a
    /// delta's sizes without its instructions. At most ``prefixInput`` compressed bytes are read.
    /// - Throws: ``StoreError`` when the data does not inflate that far.
    package func inflatedPrefix(_ entry: Entry, header: Header, count: Int) throws -> [UInt8] {
        let stream = try read(header.data, min(entry.end - header.data, Self.prefixInput))
        return try stream.withUnsafeBytes { input in
            try readingFormat(file: path) {
                let inflater = try Zlib.Inflater(input)
                var prefix = [UInt8](repeating: 0, count: min(count, header.size))
                prefix.removeLast(prefix.count - (try inflater.fill(&prefix)))
                return prefix
            }
        }
    }

    /// The compressed bytes ``inflatedPrefix(_:header:count:)`` reads: enough for a few bytes
    /// out of any deflate stream (a block's own header takes at most some 300).
    package static let prefixInput = 1024

    /// The entry's data inflated (a whole object's bytes, or a delta's instructions), its
    /// compressed data read and inflated a megabyte at a time: no copy of it is held.
    /// - Throws: ``StoreError`` when the header gives more than `largest` bytes (checked before
    ///   anything is inflated), or the data does not inflate to exactly the size it gives.
    package func inflated(_ entry: Entry, header: Header, largest: Int) throws -> [UInt8] {
        guard header.size <= largest else {
            throw StoreError(.overLimit, "object \(entry.id.hex) \(StoreError.overLimit(header.size, largest))")
        }
        let inflater = try readingFormat(file: path) { try Zlib.Inflater(UnsafeRawBufferPointer(start: nil, count: 0)) }
        var failure: (any Error)?
        // One byte more than the size: an entry that inflates to more fills it. Every byte is
        // written by zlib, or the result is dropped.
        let data = [UInt8](unsafeUninitializedCapacity: header.size + 1) { buffer, initialized in
            initialized = 0
            let output = UnsafeMutableRawBufferPointer(buffer)
            var written = 0, ended = false
            do {
                try forEachPiece(of: entry, from: header.data) { piece in
                    guard !ended else { return }
                    try piece.withUnsafeBytes { piece in
                        let step = try readingFormat(file: path) { try inflater.inflate(piece: piece, into: UnsafeMutableRawBufferPointer(rebasing: output[written...])) }
                        written += step.written
                        ended = step.ended
                    }
                }
                guard ended, written == header.size else {
                    throw StoreError(FormatError(.zlib, "it does not inflate to the \(header.size) bytes its header gives"), file: path)
                }
                initialized = written
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return data
    }

    /// What `entry`'s header says (a delta's base named by its id, wherever it is stored).
    /// - Throws: ``StoreError`` when the header is malformed or its base is not an entry here.
    package func header(of entry: Entry) throws -> Header {
        let parsed = try readingFormat(file: path) { try Pack.entryHeader(in: pack, at: entry.start, end: entry.end) }
        switch parsed.base {
        case nil:
            return Header(type: parsed.type.rawValue, size: parsed.size, base: nil, data: parsed.dataStart)
        case let .id(base):
            return Header(type: parsed.type.rawValue, size: parsed.size, base: base, data: parsed.dataStart)
        case let .offset(offset):
            guard let base = try idOfEntry(at: offset) else { throw damaged("the entry at \(entry.start) names a base at \(offset), where no entry starts") }
            return Header(type: parsed.type.rawValue, size: parsed.size, base: base, data: parsed.dataStart)
        }
    }

    /// How many deltas separate `entry` from a whole object (0 for a whole one), following
    /// bases within this pack (a base elsewhere ends the count).
    /// - Throws: ``StoreError`` when the chain loops or is longer than ``PackWriter/deepestRead``.
    package func depth(of entry: Entry) throws -> Int {
        var chain: [Int] = []
        var seen = Set<Int>()
        var current = entry
        // The depth of the last entry of `chain`, once the walk knows it.
        var last = 0
        while true {
            if let known = depths[current.start] {
                last = known + 1
                break
            }
            guard chain.count <= PackWriter.deepestRead, seen.insert(current.start).inserted else {
                throw damaged("the deltas from the entry at \(entry.start) loop or go deeper than \(PackWriter.deepestRead)")
            }
            chain.append(current.start)
            guard let base = try header(of: current).base else {
                last = 0
                break
            }
            guard let next = try self.entry(of: base) else {
                // A base stored elsewhere counts as whole.
                last = 1
                break
            }
            current = next
        }
        for start in chain.reversed() {
            depths[start] = last
            last += 1
        }
        return depths[entry.start] ?? 0
    }

    // MARK: Pieces

    private func storedOrder() throws -> Order {
        if let order { return order }
        var offsets: [Int] = []
        offsets.reserveCapacity(count)
        for number in 0..<count {
            offsets.append(try readingFormat(file: path) { try index.offset(at: number, packSize: packSize) })
        }
        guard let made = Order(offsets: offsets, count: count) else { throw damaged("its offsets cannot be ordered") }
        order = made
        return made
    }

    private func entry(storedAt position: Int, in order: Order) throws -> Entry {
        let start = order.offset(at: position), number = order.number(at: position)
        let end = position + 1 < order.keys.count ? order.offset(at: position + 1) : packSize - 20
        guard start >= 12, start < end else { throw damaged("two objects start at \(start)") }
        return Entry(number: number, id: index.id(at: number), start: start, end: end)
    }

    private func idOfEntry(at offset: Int) throws -> OID? {
        let order = try storedOrder()
        return order.position(ofOffset: offset).map { index.id(at: order.number(at: $0)) }
    }

    /// `count` bytes from `start`: from the mapping, or from the file when `fromFile` (by
    /// default, when they are ``readFromFile`` or more).
    private func read(_ start: Int, _ count: Int, fromFile: Bool? = nil) throws -> [UInt8] {
        guard start >= 0, count >= 0, start + count <= packSize else { throw damaged("an entry runs past its end") }
        guard fromFile ?? (count >= Self.readFromFile) else { return Array(UnsafeRawBufferPointer(rebasing: pack[start..<(start + count)])) }
        var buffer = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + done, count - done, off_t(start + done)) }
            if got < 0, errno == EINTR || errno == EAGAIN { continue }
            guard got > 0 else { throw damaged("it was cut short while being read") }
            done += got
        }
        return buffer
    }

    /// The size from which an entry is read from the file rather than from its mapping: the
    /// pages of a mapping that were read count in the process's resident memory until it is
    /// unmapped (read from the mapping, the versions of a folder of 100,000 took a sync's peak
    /// from 134 to 152 MB).
    package static let readFromFile = 256 << 10

    private func damaged(_ what: String) -> StoreError {
        StoreError(.damaged, "\(path) is damaged: \(what)")
    }
}

extension StoredPack {
    /// A pack's entries in the order of their offsets: each entry one integer, its offset above
    /// its number, so that the order is one array of integers, sorted by a radix sort over the
    /// offsets' bits only (11 bits a pass: a pack of 100,000 objects in 30 MB takes three passes,
    /// with counts that fit the processor's first cache), and a place is found from an offset
    /// by a binary search.
    package struct Order {
        /// The entries, by offset.
        package let keys: [UInt64]
        /// How many low bits of a key hold the entry's number.
        package let numberBits: Int

        /// The order of `count` entries whose offsets, in the order of their numbers, are
        /// `offsets`; nil when an offset is negative or too large to share a word with a number
        /// (a pack of some 10⁸ objects and 10¹¹ bytes).
        package init?(offsets: some Sequence<Int>, count: Int) {
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
        package func offset(at position: Int) -> Int { Int(keys[position] >> UInt64(numberBits)) }

        /// The number of the entry at `position`.
        package func number(at position: Int) -> Int { Int(keys[position] & (1 << UInt64(numberBits) - 1)) }

        /// The place of the entry that starts at `offset`; nil when none does.
        package func position(ofOffset offset: Int) -> Int? {
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
