internal import GitFormat

extension FuzzTarget {
    /// A pack index. Input: the size of the pack it describes (8 bytes, up to 2^40), then the
    /// index's bytes.
    ///
    /// An index ``PackIndex/init(validating:)`` accepts is checked again here, read directly:
    /// its fan-out never decreases and its last entry is the count, its size is what the count
    /// says, its ids are in strictly increasing order each under its first byte's fan-out entry;
    /// then for every object `n`, `number(of: id(at: n)) == n`, an id it does not list is not
    /// found (or found where it is), and `offset(at:packSize:)` gives what the offset tables hold,
    /// inside the pack, or refuses it when it is not.
    static func packIndex(_ raw: UnsafeRawBufferPointer) throws(FuzzFailure) {
        var input = FuzzInput(raw)
        let packSize = input.number(bytes: 8) & (1 << 40 - 1)
        try withExactCopy(input.rest()) { bytes throws(FuzzFailure) in
            guard let index = try? PackIndex(validating: bytes) else { return }
            try checkAccepted(index, bytes, packSize: packSize)
        }
    }

    private static let indexHeader = 8 + 256 * 4

    private static func checkAccepted(_ index: PackIndex, _ bytes: UnsafeRawBufferPointer, packSize: Int) throws(FuzzFailure) {
        try expect(bytes.count >= indexHeader + 40, "accepted an index of \(bytes.count) bytes")
        var fanout: [Int] = []
        for bucket in 0..<256 {
            let value = word(bytes, 8 + bucket * 4)
            try expect(value >= (fanout.last ?? 0), "accepted a fan-out that decreases at entry \(bucket)")
            fanout.append(value)
        }
        let count = index.count
        try expect(count == fanout[255], "counts \(count) objects where the fan-out says \(fanout[255])")
        let smallest = indexHeader + count * 28 + 40
        let large = (bytes.count - smallest) / 8
        try expect(
            bytes.count >= smallest && (bytes.count - smallest) % 8 == 0 && large <= max(count - 1, 0),
            "accepted \(bytes.count) bytes for \(count) objects")
        try expect(index.packChecksum.elementsEqual(bytes[(bytes.count - 40)..<(bytes.count - 20)]), "the pack checksum is not the one the index holds")
        var previous: OID?
        for number in 0..<count {
            let id = index.id(at: number)
            let first = id.withUnsafeBytes { Int($0[0]) }
            try expect((first == 0 ? 0 : fanout[first - 1]) <= number && number < fanout[first], "object \(number) lies outside its fan-out entry")
            if let previous { try expect(previous < id, "accepted ids out of order at object \(number)") }
            previous = id
            try expect(index.number(of: id) == number, "number(of: id(at: \(number))) is \(String(describing: index.number(of: id)))")
            var other = id.bytes
            other[19] ^= 1
            if let unlisted = OID(bytes: other), let found = index.number(of: unlisted) {
                try expect(index.id(at: found) == unlisted, "number(of:) found an id at \(found) that is not there")
            }
            try checkOffset(index, bytes, number: number, large: large, packSize: packSize)
        }
    }

    /// The offset of object `number` against the offset tables read directly.
    private static func checkOffset(_ index: PackIndex, _ bytes: UnsafeRawBufferPointer, number: Int, large: Int, packSize: Int) throws(FuzzFailure) {
        let count = index.count
        let small = word(bytes, indexHeader + count * 24 + number * 4)
        var expected: Int? = small
        if small & 0x8000_0000 != 0 {
            let entry = small & 0x7FFF_FFFF
            if entry < large {
                let at = indexHeader + count * 28 + entry * 8
                expected = word(bytes, at) << 32 | word(bytes, at + 4)
            } else {
                expected = nil
            }
        }
        if let value = expected, value < 12 || value >= packSize - 20 { expected = nil }
        let offset = try? index.offset(at: number, packSize: packSize)
        try expect(offset == expected, "offset(at: \(number)) is \(String(describing: offset)) where the tables give \(String(describing: expected))")
    }
}
