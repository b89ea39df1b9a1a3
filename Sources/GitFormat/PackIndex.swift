internal import Glibc

/// A pack index (`.idx`, version 2) read from its bytes, checked before anything trusts it.
///
/// What ``init(validating:)`` checks, as libgit2's `pack_index_check` does and more: the magic
/// and version; a fan-out table that never decreases; a file size that is exactly what the
/// object count says (the ids, CRCs and offsets, an optional table of large offsets, the two
/// checksums), so that no count can point past the bytes; and ids in strictly increasing order,
/// each under the fan-out entry of its first byte, so that a binary search is sound. Offsets
/// are checked when read, against the pack's size (``offset(at:packSize:)``).
///
/// A view: the bytes belong to whoever mapped or read them, and must outlive it.
package struct PackIndex {
    /// The index's bytes.
    package let bytes: UnsafeRawBufferPointer
    /// How many objects it lists.
    package let count: Int
    /// How many entries its table of large offsets has.
    private let largeOffsets: Int

    private static let header = 8 + 256 * 4
    private static let magic: [UInt8] = [0xFF, 0x74, 0x4F, 0x63, 0, 0, 0, 2]

    /// The bytes of an index's magic, version and fan-out table.
    package static let headerSize = header

    /// The object count an index's header gives (its last fan-out entry): nil when `bytes` (at
    /// least ``headerSize`` of them) is not the start of a version-2 index. Nothing else checked.
    package static func count(fromHeader bytes: UnsafeRawBufferPointer) -> Int? {
        guard bytes.count >= header, bytes.prefix(8).elementsEqual(magic) else { return nil }
        return word(bytes, header - 4)
    }

    /// Checks `bytes` as a version-2 pack index.
    /// - Throws: ``FormatError`` naming the first problem found.
    package init(validating bytes: UnsafeRawBufferPointer) throws(FormatError) {
        guard bytes.count >= Self.header + 40 else { throw FormatError(.packIndex, "it is cut short (\(bytes.count) bytes)") }
        guard bytes.prefix(8).elementsEqual(Self.magic) else { throw FormatError(.packIndex, "it is not a version 2 pack index") }
        var previous = 0
        for bucket in 0..<256 {
            let value = Self.word(bytes, 8 + bucket * 4)
            guard value >= previous else { throw FormatError(.packIndex, "its fan-out table decreases at entry \(bucket)") }
            previous = value
        }
        let count = previous
        let smallest = Self.header + count * 28 + 40
        guard bytes.count >= smallest, (bytes.count - smallest) % 8 == 0 else {
            throw FormatError(.packIndex, "its size (\(bytes.count) bytes) does not match the \(count) objects it claims")
        }
        let largeOffsets = (bytes.count - smallest) / 8
        guard largeOffsets <= max(count - 1, 0) else {
            throw FormatError(.packIndex, "its size (\(bytes.count) bytes) does not match the \(count) objects it claims")
        }
        self.bytes = bytes
        self.count = count
        self.largeOffsets = largeOffsets
        try checkOrder()
    }

    /// The checksum of the pack this index describes (the pack's last 20 bytes must match).
    package var packChecksum: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: bytes[(bytes.count - 40)..<(bytes.count - 20)])
    }

    /// The number of `id` in the index, nil when it does not list it: a binary search among the
    /// ids of its first byte.
    package func number(of id: OID) -> Int? {
        let first = id.withUnsafeBytes { Int($0[0]) }
        var low = first == 0 ? 0 : fanout(first - 1), high = fanout(first)
        while low < high {
            let middle = (low + high) / 2
            let order = id.withUnsafeBytes { memcompare($0, idBytes(middle)) }
            if order == 0 { return middle }
            if order < 0 { high = middle } else { low = middle + 1 }
        }
        return nil
    }

    /// The id listed at `number` (`0..<count`).
    package func id(at number: Int) -> OID {
        OID(unchecked: idBytes(number))
    }

    /// Where the entry listed at `number` starts in a pack of `packSize` bytes.
    /// - Throws: ``FormatError`` when the offset, or its entry in the table of large offsets,
    ///   lies outside the pack's entries (after its 12-byte header, before its 20-byte trailer).
    package func offset(at number: Int, packSize: Int) throws(FormatError) -> Int {
        let offsets = Self.header + count * 24
        let value = Self.word(bytes, offsets + number * 4)
        var offset = value
        if value & 0x8000_0000 != 0 {
            let large = value & 0x7FFF_FFFF
            guard large < largeOffsets else { throw FormatError(.packIndex, "object \(number) names a large offset it does not hold") }
            let at = offsets + count * 4 + large * 8
            offset = Self.word(bytes, at) << 32 | Self.word(bytes, at + 4)
        }
        guard offset >= 12, offset < packSize - 20 else {
            throw FormatError(.packIndex, "object \(number) starts at \(offset), outside a pack of \(packSize) bytes")
        }
        return offset
    }

    // MARK: Pieces

    private func fanout(_ bucket: Int) -> Int { Self.word(bytes, 8 + bucket * 4) }

    private func idBytes(_ number: Int) -> UnsafeRawBufferPointer {
        let at = Self.header + number * 20
        return UnsafeRawBufferPointer(rebasing: bytes[at..<(at + 20)])
    }

    /// Every id after the one before it, and each under the fan-out entry of its first byte.
    private func checkOrder() throws(FormatError) {
        var bucketEnd = 0, bucket = -1
        for number in 0..<count {
            while number >= bucketEnd {
                bucket += 1
                bucketEnd = fanout(bucket)
            }
            let id = idBytes(number)
            guard Int(id[0]) == bucket else { throw FormatError(.packIndex, "object \(number) is listed under the wrong fan-out entry") }
            if number > 0, memcompare(idBytes(number - 1), id) >= 0 {
                throw FormatError(.packIndex, "its ids are not in order at object \(number)")
            }
        }
    }

    private static func word(_ bytes: UnsafeRawBufferPointer, _ at: Int) -> Int {
        Int(UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self)))
    }
}

extension PackIndex {
    /// One object a pack index lists: its id, where its entry starts in the pack, and the CRC-32
    /// of the entry as stored.
    package struct Listing {
        package var id: OID
        package var offset: Int
        package var crc: UInt32

        /// A listing.
        package init(id: OID, offset: Int, crc: UInt32) {
            self.id = id
            self.offset = offset
            self.crc = crc
        }
    }

    /// The bytes of the version-2 index of a pack whose trailing checksum is `packChecksum` and
    /// whose entries are `listings` (in any order): the fan-out table, the ids in order, their
    /// CRCs and offsets (those past 2 GB in a table of their own), the pack's checksum and the
    /// index's own.
    package static func write(_ listings: [Listing], packChecksum: [UInt8]) -> [UInt8] {
        let sorted = listings.sorted { $0.id < $1.id }
        var index: [UInt8] = [0xFF, 0x74, 0x4F, 0x63, 0, 0, 0, 2]
        index.reserveCapacity(header + sorted.count * 28 + 40)
        func word(_ value: UInt32) { for shift in [24, 16, 8, 0] { index.append(UInt8((value >> UInt32(shift)) & 0xFF)) } }
        var fanout = [UInt32](repeating: 0, count: 256)
        for listing in sorted { fanout[listing.id.withUnsafeBytes { Int($0[0]) }] += 1 }
        var total: UInt32 = 0
        for bucket in 0..<256 {
            total += fanout[bucket]
            word(total)
        }
        for listing in sorted { listing.id.withUnsafeBytes { index.append(contentsOf: $0) } }
        for listing in sorted { word(listing.crc) }
        var large: [Int] = []
        for listing in sorted {
            if listing.offset < 0x8000_0000 {
                word(UInt32(listing.offset))
            } else {
                word(0x8000_0000 | UInt32(large.count))
                large.append(listing.offset)
            }
        }
        for offset in large {
            word(UInt32(offset >> 32))
            word(UInt32(offset & 0xFFFF_FFFF))
        }
        index += packChecksum
        return index + SHA1.digest(index)
    }
}

/// Byte order of two buffers of 20 bytes: negative, zero or positive.
private func memcompare(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
    Int(memcmp(a.baseAddress!, b.baseAddress!, 20))
}
