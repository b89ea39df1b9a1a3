/// SHA-1 and HMAC-SHA-1, for the hashed host names of OpenSSH's known_hosts files
/// (`|1|base64(salt)|base64(HMAC-SHA1(salt, host))`). Not for anything that needs SHA-1 to resist
/// collisions: a hashed name only hides which hosts a user knows.
enum SHA1 {
    /// The 20-byte digest of `message`.
    static func digest(_ message: [UInt8]) -> [UInt8] {
        var state: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0]
        var padded = message
        padded.append(0x80)
        while padded.count % 64 != 56 { padded.append(0) }
        let bits = UInt64(message.count) &* 8
        for shift in stride(from: 56, through: 0, by: -8) { padded.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
        var words = [UInt32](repeating: 0, count: 80)
        for block in stride(from: 0, to: padded.count, by: 64) {
            for index in 0..<16 {
                let offset = block + index * 4
                words[index] =
                    UInt32(padded[offset]) << 24 | UInt32(padded[offset + 1]) << 16
                    | UInt32(padded[offset + 2]) << 8 | UInt32(padded[offset + 3])
            }
            for index in 16..<80 {
                words[index] = rotate(words[index - 3] ^ words[index - 8] ^ words[index - 14] ^ words[index - 16], 1)
            }
            var (a, b, c, d, e) = (state[0], state[1], state[2], state[3], state[4])
            for index in 0..<80 {
                let (f, k): (UInt32, UInt32)
                switch index {
                case 0..<20: (f, k) = ((b & c) | (~b & d), 0x5A82_7999)
                case 20..<40: (f, k) = (b ^ c ^ d, 0x6ED9_EBA1)
                case 40..<60: (f, k) = ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
                default: (f, k) = (b ^ c ^ d, 0xCA62_C1D6)
                }
                let next = rotate(a, 5) &+ f &+ e &+ k &+ words[index]
                (e, d, c, b, a) = (d, c, rotate(b, 30), a, next)
            }
            state[0] &+= a
            state[1] &+= b
            state[2] &+= c
            state[3] &+= d
            state[4] &+= e
        }
        return state.flatMap { word in [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: word >> UInt32($0)) } }
    }

    /// HMAC-SHA-1 of `message` under `key` (RFC 2104).
    static func hmac(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var block = key.count > 64 ? digest(key) : key
        block += [UInt8](repeating: 0, count: 64 - block.count)
        let inner = digest(block.map { $0 ^ 0x36 } + message)
        return digest(block.map { $0 ^ 0x5C } + inner)
    }

    private static func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 {
        value << count | value >> (32 - count)
    }
}
