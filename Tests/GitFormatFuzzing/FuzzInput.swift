/// One fuzz input read from the front: a few numbers that steer the run, then the bytes the
/// readers see. Reading past the end gives zeros and empty parts, so every input is a run.
struct FuzzInput {
    private let bytes: UnsafeRawBufferPointer
    private var at = 0

    /// Reads `bytes` from the start.
    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// The next `width` bytes as a big-endian number (zeros past the end).
    mutating func number(bytes width: Int) -> Int {
        var value = 0
        for _ in 0..<width {
            value = value << 8 | Int(at < bytes.count ? bytes[at] : 0)
            at += 1
        }
        return value
    }

    /// The next `count` bytes, fewer at the end.
    mutating func take(_ count: Int) -> [UInt8] {
        let start = min(at, bytes.count)
        let end = min(start + count, bytes.count)
        at = end
        return Array(bytes[start..<end])
    }

    /// Every byte not read yet.
    mutating func rest() -> [UInt8] {
        take(bytes.count)
    }
}

/// Calls `body` with a copy of `bytes` in an allocation of exactly their size, so that
/// AddressSanitizer reports a read even one byte past them (a part cut from a larger input
/// would be followed by the input's next bytes). An empty part has no address, as an empty
/// buffer may have.
func withExactCopy<Result>(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws(FuzzFailure) -> Result) throws(FuzzFailure) -> Result {
    guard !bytes.isEmpty else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
    let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
    defer { copy.deallocate() }
    copy.copyBytes(from: bytes)
    return try body(UnsafeRawBufferPointer(copy))
}

/// The four bytes of `bytes` at `at`, read as a big-endian number (as git stores counts and offsets).
func word(_ bytes: UnsafeRawBufferPointer, _ at: Int) -> Int {
    bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) }
}
