/// git's pack format (version 2 or 3): a 12-byte header (`PACK`, the version, the object
/// count), the entries, and a 20-byte trailer (the SHA-1 of everything before it).
package enum Pack {
    /// git's numbering of an entry's type: 1–4 whole objects (commit, tree, blob, tag), 6 a
    /// delta against the entry at an offset before it, 7 a delta against an object named by id.
    package enum EntryType: UInt8, Sendable {
        case commit = 1, tree = 2, blob = 3, tag = 4, offsetDelta = 6, referenceDelta = 7

        /// The object a whole entry holds; nil for a delta.
        package var object: ObjectType? { ObjectType(rawValue: rawValue) }
    }

    /// What an entry's header says.
    package struct EntryHeader: Equatable {
        /// Where a delta's base is.
        package enum Base: Equatable {
            /// The entry starting at this offset of the same pack.
            case offset(Int)
            /// The object with this id.
            case id(OID)
        }

        /// The entry's type.
        package var type: EntryType
        /// The size of the entry's data once inflated (for a delta, of its instructions).
        package var size: Int
        /// A delta's base; nil for a whole object.
        package var base: Base?
        /// Where the compressed data starts, as an offset in the pack.
        package var dataStart: Int
    }

    /// The largest size an entry's header may give: far beyond any limit, small enough that no
    /// arithmetic on it overflows.
    package static let largestDeclaredSize = 1 << 48

    /// Checks a pack's header and trailer against the index that describes it: `PACK`, version
    /// 2 or 3, the index's object count, and a trailer equal to the checksum the index holds.
    /// - Throws: ``FormatError`` naming the first mismatch.
    package static func validate(_ pack: UnsafeRawBufferPointer, against index: PackIndex) throws(FormatError) {
        guard pack.count >= 32 else { throw FormatError(.pack, "it is cut short (\(pack.count) bytes)") }
        guard pack.prefix(4).elementsEqual("PACK".utf8) else { throw FormatError(.pack, "it does not start with PACK") }
        let version = word(pack, 4), count = word(pack, 8)
        guard version == 2 || version == 3 else { throw FormatError(.pack, "version \(version) is not one git writes") }
        guard count == index.count else { throw FormatError(.pack, "it holds \(count) objects where its index lists \(index.count)") }
        guard pack.suffix(20).elementsEqual(index.packChecksum) else { throw FormatError(.pack, "its trailer is not the checksum its index names") }
    }

    /// The header of the entry at `start` in `pack`, reading no further than `end` (where the
    /// next entry, or the trailer, starts).
    /// - Throws: ``FormatError`` when the header runs past `end`, names an unknown type, gives a
    ///   size over ``largestDeclaredSize``, or names a base at or after `start` or before the
    ///   first entry.
    package static func entryHeader(in pack: UnsafeRawBufferPointer, at start: Int, end: Int) throws(FormatError) -> EntryHeader {
        guard start >= 12, start < end, end <= pack.count else { throw FormatError(.pack, "an entry at \(start) lies outside the pack") }
        var at = start
        func next() throws(FormatError) -> UInt8 {
            guard at < end else { throw FormatError(.pack, "the header of the entry at \(start) runs past its end") }
            defer { at += 1 }
            return pack[at]
        }
        var byte = try next()
        guard let type = EntryType(rawValue: (byte >> 4) & 7) else {
            throw FormatError(.pack, "the entry at \(start) has type \((byte >> 4) & 7)")
        }
        var size = Int(byte & 0x0F), shift = 4
        while byte & 0x80 != 0 {
            byte = try next()
            guard shift <= 41 else { throw FormatError(.pack, "the entry at \(start) claims a size too large to hold", overLimit: true) }
            size |= Int(byte & 0x7F) << shift
            shift += 7
        }
        switch type {
        case .offsetDelta:
            byte = try next()
            var distance = Int(byte & 0x7F)
            while byte & 0x80 != 0 {
                byte = try next()
                guard distance < 1 << 48 else { throw FormatError(.pack, "the entry at \(start) names a base too far back") }
                distance = ((distance + 1) << 7) | Int(byte & 0x7F)
            }
            guard distance > 0, start - distance >= 12 else {
                throw FormatError(.pack, "the entry at \(start) names a base outside the pack")
            }
            return EntryHeader(type: type, size: size, base: .offset(start - distance), dataStart: at)
        case .referenceDelta:
            guard end - at >= 20 else { throw FormatError(.pack, "the header of the entry at \(start) runs past its end") }
            let base = OID(unchecked: UnsafeRawBufferPointer(rebasing: pack[at..<(at + 20)]))
            return EntryHeader(type: type, size: size, base: .id(base), dataStart: at + 20)
        default:
            return EntryHeader(type: type, size: size, base: nil, dataStart: at)
        }
    }

    // MARK: Writing

    /// Appends the header of an entry of `type` whose data inflates to `size` bytes: the type
    /// and the size's low four bits, then seven bits a byte.
    package static func appendEntryHeader(type: EntryType, size: Int, to bytes: inout [UInt8]) {
        var size = size
        var byte = (type.rawValue << 4) | UInt8(size & 0x0F)
        size >>= 4
        while size > 0 {
            bytes.append(byte | 0x80)
            byte = UInt8(size & 0x7F)
            size >>= 7
        }
        bytes.append(byte)
    }

    /// Appends the header of a delta whose instructions are `size` bytes and whose base starts
    /// `distance` bytes before this entry in the same pack (git's offset encoding: seven bits a
    /// byte, most significant first, each continuation adding one).
    package static func appendOffsetDeltaHeader(size: Int, distance: Int, to bytes: inout [UInt8]) {
        appendEntryHeader(type: .offsetDelta, size: size, to: &bytes)
        var distance = distance
        var encoded = [UInt8(distance & 0x7F)]
        distance >>= 7
        while distance > 0 {
            distance -= 1
            encoded.append(0x80 | UInt8(distance & 0x7F))
            distance >>= 7
        }
        bytes.append(contentsOf: encoded.reversed())
    }

    /// Appends the header of a delta whose instructions are `size` bytes and whose base is
    /// the object `base`, named by its id.
    package static func appendReferenceDeltaHeader(size: Int, base: OID, to bytes: inout [UInt8]) {
        appendEntryHeader(type: .referenceDelta, size: size, to: &bytes)
        base.withUnsafeBytes { bytes.append(contentsOf: $0) }
    }

    /// The 12-byte header of a pack (version 2) of `count` entries.
    package static func header(count: Int) -> [UInt8] {
        Array("PACK".utf8) + [0, 0, 0, 2] + (0..<4).map { UInt8((count >> (8 * (3 - $0))) & 0xFF) }
    }

    private static func word(_ bytes: UnsafeRawBufferPointer, _ at: Int) -> Int {
        Int(UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self)))
    }
}
