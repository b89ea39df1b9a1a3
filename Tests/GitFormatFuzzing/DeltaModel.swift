/// git's delta format read the plain way, from its description, with arrays and no pointer:
/// the answer ``Delta`` must give. (Not fast, not shared with the reader it checks.)
///
/// A delta is the base's size and the target's size (seven bits a byte, least significant
/// first, the high bit saying another byte follows), then instructions: a byte with its high
/// bit set copies from the base (its low four bits say which offset bytes follow, the next
/// three which size bytes; a size of 0 means 0x10000), a byte from 1 to 127 inserts that many
/// bytes that follow it, and 0 is reserved.
enum DeltaModel {
    /// The two sizes of the header and where the instructions start; nil when malformed.
    static func header(_ delta: [UInt8]) -> (base: Int, target: Int, start: Int)? {
        var at = 0
        func size() -> Int? {
            var value = 0
            for index in 0..<8 {
                guard at < delta.count else { return nil }
                let byte = delta[at]
                at += 1
                value |= Int(byte & 0x7F) << (7 * index)
                if byte < 0x80 { return value }
            }
            return nil
        }
        guard let base = size(), let target = size() else { return nil }
        return (base, target, at)
    }

    /// The target `delta` rebuilds from `base`; nil when it is malformed or its target is over
    /// `largest` bytes.
    static func apply(_ delta: [UInt8], to base: [UInt8], largest: Int) -> [UInt8]? {
        guard let header = header(delta), header.base == base.count, header.target <= largest else { return nil }
        var target: [UInt8] = []
        var at = header.start
        func next() -> Int? {
            guard at < delta.count else { return nil }
            at += 1
            return Int(delta[at - 1])
        }
        while let command = next() {
            if command >= 0x80 {
                var offset = 0, length = 0
                for bit in 0..<7 where command & (1 << bit) != 0 {
                    guard let byte = next() else { return nil }
                    if bit < 4 { offset |= byte << (8 * bit) } else { length |= byte << (8 * (bit - 4)) }
                }
                if length == 0 { length = 0x10000 }
                guard offset + length <= base.count, target.count + length <= header.target else { return nil }
                target += base[offset..<(offset + length)]
            } else if command > 0 {
                guard at + command <= delta.count, target.count + command <= header.target else { return nil }
                target += delta[at..<(at + command)]
                at += command
            } else {
                return nil
            }
        }
        return target.count == header.target ? target : nil
    }
}
