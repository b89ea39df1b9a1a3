/// git's loose object file: one zlib stream of `<type> <size>\0` and the object's bytes.
package enum LooseObject {
    /// The object types a loose file can hold, numbered as in a pack.
    package static let types: [String: ObjectType] = ["commit": .commit, "tree": .tree, "blob": .blob, "tag": .tag]

    /// The type and bytes of the object in `file` (its compressed bytes), refusing before any
    /// allocation an object whose header gives more than `largest` bytes.
    /// - Throws: ``FormatError`` when the header is malformed, the size is over `largest`
    ///   (``FormatError/isOverLimit``), or the data does not inflate to exactly that size.
    package static func read(_ file: UnsafeRawBufferPointer, largest: Int) throws(FormatError) -> (type: ObjectType, bytes: [UInt8]) {
        var offset = 0
        do {
            return try read(
                pieces: { () -> [UInt8]? in
                    guard offset < file.count else { return nil }
                    defer { offset = min(offset + (1 << 20), file.count) }
                    return Array(file[offset..<min(offset + (1 << 20), file.count)])
                }, largest: largest)
        } catch let error as FormatError {
            throw error
        } catch {
            throw FormatError(.looseObject, "\(error)")
        }
    }

    /// The type and bytes of the object whose compressed bytes `next` gives piece by piece (nil
    /// at the end; each piece used before the next is asked for), refusing before any
    /// allocation an object whose header gives more than `largest` bytes: a large file is read
    /// without a copy of its compressed bytes.
    /// - Throws: ``FormatError`` as ``read(_:largest:)``, or what `next` throws.
    package static func read(pieces next: () throws -> [UInt8]?, largest: Int) throws -> (type: ObjectType, bytes: [UInt8]) {
        let inflater = try Zlib.Inflater(UnsafeRawBufferPointer(start: nil, count: 0))
        var piece: [UInt8] = []
        var used = 0
        var ended = false
        /// Inflates into `output` until it is full or the stream ends.
        func inflate(into output: UnsafeMutableRawBufferPointer) throws -> Int {
            var written = 0
            while written < output.count, !ended {
                if used == piece.count {
                    guard let more = try next(), !more.isEmpty else { throw FormatError(.zlib, "the stream is cut short") }
                    (piece, used) = (more, 0)
                }
                let step = try piece.withUnsafeBytes { piece in
                    try inflater.inflate(piece: UnsafeRawBufferPointer(rebasing: piece[used...]), into: UnsafeMutableRawBufferPointer(rebasing: output[written...]))
                }
                used += step.consumed
                written += step.written
                ended = step.ended
            }
            return written
        }
        // The longest header: "commit " and twenty digits and the NUL.
        var head = [UInt8](repeating: 0, count: 32)
        let got = try head.withUnsafeMutableBytes { try inflate(into: $0) }
        let (type, size, start) = try header(head.prefix(got))
        guard size <= largest else {
            throw FormatError(.looseObject, "claims \(size) bytes, over the limit of \(largest)", claimed: size)
        }
        guard got - start <= size else { throw FormatError(.looseObject, "it holds more than its header gives") }
        let already = got - start
        var failure: (any Error)?
        // One byte more than the size: an object that inflates to more fills it.
        let bytes = [UInt8](unsafeUninitializedCapacity: size + 1) { buffer, initialized in
            initialized = 0
            do {
                for index in 0..<already { buffer[index] = head[start + index] }
                let filled = try inflate(into: UnsafeMutableRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(buffer)[already...]))
                guard already + filled == size, ended else {
                    throw FormatError(.looseObject, "it does not inflate to the \(size) bytes its header gives")
                }
                initialized = size
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return (type, bytes)
    }

    /// The type, size and end of the header at the start of `bytes`.
    /// - Throws: ``FormatError`` when it is not `<type> <decimal size>\0`.
    package static func header(_ bytes: ArraySlice<UInt8>) throws(FormatError) -> (type: ObjectType, size: Int, end: Int) {
        guard let space = bytes.firstIndex(of: UInt8(ascii: " ")), let nul = bytes[space...].firstIndex(of: 0),
            let type = types[String(decoding: bytes[bytes.startIndex..<space], as: UTF8.self)]
        else { throw FormatError(.looseObject, "its header is malformed") }
        let digits = bytes[(space + 1)..<nul]
        guard !digits.isEmpty, digits.count <= 15, digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            digits.count == 1 || digits.first != UInt8(ascii: "0")
        else { throw FormatError(.looseObject, "its header gives no valid size") }
        let size = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        return (type, size, nul + 1 - bytes.startIndex)
    }
}
