/// git's formats written byte by byte, as an attacker who controls a cloud would write them:
/// zlib streams, pack entries, packs and pack indexes whose every field the test chooses (a
/// checksum is whatever the test gives, never computed). Ids are 20-byte arrays.
public enum GitBytes {
    /// A zlib stream of `data` in stored (uncompressed) blocks, with its Adler-32 checksum: the
    /// declared sizes inside it stay readable and editable in the bytes.
    public static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var stream: [UInt8] = [0x78, 0x01]
        var start = 0
        repeat {
            let length = min(data.count - start, 0xFFFF)
            let last = start + length == data.count
            stream.append(last ? 1 : 0)
            stream += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
            stream += data[start..<(start + length)]
            start += length
        } while start < data.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return stream + bigEndian(Int(b << 16 | a), width: 4)
    }

    /// A pack entry's header: the type (1–4 whole objects, 6 offset delta, 7 reference delta)
    /// and the size of its inflated data, then for a delta its base (the distance back to it,
    /// or its id).
    public static func entryHeader(type: UInt8, size: Int, distance: Int? = nil, base: [UInt8]? = nil) -> [UInt8] {
        var size = size
        var header: [UInt8] = [type << 4 | UInt8(size & 0x0F)]
        size >>= 4
        while size > 0 {
            header[header.count - 1] |= 0x80
            header.append(UInt8(size & 0x7F))
            size >>= 7
        }
        if var distance {
            var encoded = [UInt8(distance & 0x7F)]
            distance >>= 7
            while distance > 0 {
                distance -= 1
                encoded.insert(0x80 | UInt8(distance & 0x7F), at: 0)
                distance >>= 7
            }
            header += encoded
        }
        return header + (base ?? [])
    }

    /// A version 2 pack of `entries` (each a header and its compressed data), with `count` in
    /// its header (the number of entries unless given) and `trailer` as its last 20 bytes.
    /// - Returns: the pack and where each entry starts.
    public static func pack(_ entries: [[UInt8]], count: Int? = nil, trailer: [UInt8] = Array(repeating: 0xAB, count: 20)) -> (bytes: [UInt8], offsets: [Int]) {
        var bytes = Array("PACK".utf8) + bigEndian(2, width: 4) + bigEndian(count ?? entries.count, width: 4)
        var offsets: [Int] = []
        for entry in entries {
            offsets.append(bytes.count)
            bytes += entry
        }
        return (bytes + trailer, offsets)
    }

    /// A version 2 pack index listing `objects` (ids with their offsets) in the order given,
    /// with a fan-out table counted from those ids unless `fanout` gives one, the offsets of
    /// 2^31 or more in a table of large offsets, and `packChecksum` as the checksum of its pack.
    public static func packIndex(_ objects: [(id: [UInt8], offset: Int)], fanout: [Int]? = nil, packChecksum: [UInt8] = Array(repeating: 0xAB, count: 20)) -> [UInt8] {
        var bytes: [UInt8] = [0xFF, 0x74, 0x4F, 0x63, 0, 0, 0, 2]
        let table = fanout ?? (0..<256).map { bucket in objects.filter { Int($0.id[0]) <= bucket }.count }
        for value in table { bytes += bigEndian(value, width: 4) }
        for object in objects { bytes += object.id }
        bytes += Array(repeating: 0, count: 4 * objects.count)
        var large: [Int] = []
        for object in objects {
            if object.offset >= 1 << 31 {
                bytes += bigEndian(0x8000_0000 | large.count, width: 4)
                large.append(object.offset)
            } else {
                bytes += bigEndian(object.offset, width: 4)
            }
        }
        for offset in large { bytes += bigEndian(offset, width: 8) }
        return bytes + packChecksum + Array(repeating: 0xCD, count: 20)
    }

    /// A delta's header: the base's size and the target's, seven bits a byte.
    public static func deltaSizes(base: Int, target: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        for var value in [base, target] {
            repeat {
                let low = UInt8(value & 0x7F)
                value >>= 7
                bytes.append(value > 0 ? low | 0x80 : low)
            } while value > 0
        }
        return bytes
    }

    /// A delta instruction that copies `count` bytes (1 to 0x10000) of the base from `offset`.
    public static func deltaCopy(offset: Int, count: Int) -> [UInt8] {
        var command: UInt8 = 0x80
        var bytes: [UInt8] = []
        for index in 0..<4 where (offset >> (8 * index)) & 0xFF != 0 {
            command |= 1 << index
            bytes.append(UInt8((offset >> (8 * index)) & 0xFF))
        }
        let length = count == 0x10000 ? 0 : count
        for index in 0..<3 where (length >> (8 * index)) & 0xFF != 0 {
            command |= 0x10 << index
            bytes.append(UInt8((length >> (8 * index)) & 0xFF))
        }
        return [command] + bytes
    }

    /// `value` as `width` big-endian bytes.
    public static func bigEndian(_ value: Int, width: Int) -> [UInt8] {
        (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * (width - 1 - $0))) }
    }
}
