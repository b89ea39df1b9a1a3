internal import Foundation

/// A pack of the object database read as bytes, with its index, so that its entries can be
/// copied into another pack as they are stored (compressed, deltas included) instead of being
/// unpacked and searched for deltas again.
struct StoredPack {
    /// One stored entry: where it starts and ends in the pack, and its object's id.
    struct Entry {
        var id: OID
        var start: Int
        var end: Int
    }

    /// The pack file's bytes.
    let bytes: [UInt8]
    /// Its entries in the order they are stored.
    let entries: [Entry]
    private let idAtOffset: [Int: OID]

    /// Reads `stem.pack` and `stem.idx` (index version 2).
    /// - Throws: ``GitError`` when either cannot be read or does not hold what the other says.
    init(stem: String) throws {
        let ids = try Repository.objectIDs(ofIndex: stem + ".idx")
        guard let index = FileManager.default.contents(atPath: stem + ".idx").map([UInt8].init),
            let pack = FileManager.default.contents(atPath: stem + ".pack").map([UInt8].init), pack.count >= 32
        else { throw Self.damaged(stem) }
        let count = ids.count
        let offsetsStart = 8 + 256 * 4 + count * 24
        let largeStart = offsetsStart + count * 4
        func word(_ at: Int) -> Int { index[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        guard index.count >= largeStart else { throw Self.damaged(stem) }
        var entries: [Entry] = []
        entries.reserveCapacity(count)
        for (number, id) in ids.enumerated() {
            var offset = word(offsetsStart + number * 4)
            if offset & 0x8000_0000 != 0 {
                let at = largeStart + (offset & 0x7FFF_FFFF) * 8
                guard index.count >= at + 8 else { throw Self.damaged(stem) }
                offset = word(at) << 32 | word(at + 4)
            }
            guard offset >= 12, offset < pack.count - 20 else { throw Self.damaged(stem) }
            entries.append(Entry(id: id, start: offset, end: 0))
        }
        entries.sort { $0.start < $1.start }
        for number in entries.indices {
            entries[number].end = number + 1 < entries.count ? entries[number + 1].start : pack.count - 20
        }
        bytes = pack
        self.entries = entries
        idAtOffset = Dictionary(entries.map { ($0.start, $0.id) }, uniquingKeysWith: { first, _ in first })
    }

    /// What an entry's header says: its type (git's pack numbering: 1–4 objects, 6 and 7
    /// deltas), the size of its unpacked data, its delta base's id (deltas only) and where its
    /// compressed data starts.
    func header(of entry: Entry) throws -> (type: UInt8, size: Int, base: OID?, data: Int) {
        var at = entry.start
        var byte = bytes[at]
        let type = (byte >> 4) & 7
        var size = Int(byte & 0x0F)
        var shift = 4
        while byte & 0x80 != 0 {
            at += 1
            guard at < entry.end, shift < 57 else { throw Self.damaged("an entry") }
            byte = bytes[at]
            size |= Int(byte & 0x7F) << shift
            shift += 7
        }
        at += 1
        switch type {
        case 6:
            guard at < entry.end else { throw Self.damaged("an entry") }
            byte = bytes[at]
            var distance = Int(byte & 0x7F)
            while byte & 0x80 != 0 {
                at += 1
                guard at < entry.end, distance < 1 << 50 else { throw Self.damaged("an entry") }
                byte = bytes[at]
                distance = ((distance + 1) << 7) | Int(byte & 0x7F)
            }
            guard let base = idAtOffset[entry.start - distance] else { throw Self.damaged("a delta's base") }
            return (type, size, base, at + 1)
        case 7:
            guard at + 20 <= entry.end, let base = OID(bytes: bytes[at..<(at + 20)]) else { throw Self.damaged("a delta's base") }
            return (type, size, base, at + 20)
        case 1...4:
            return (type, size, nil, at)
        default:
            throw Self.damaged("an entry of type \(type)")
        }
    }

    private static func damaged(_ what: String) -> GitError {
        GitError(message: "cannot copy \(what) of a pack: it is damaged", function: "StoredPack")
    }
}
