/// git's loose object file: one zlib stream of `<type> <size>\0` and the object's bytes.
package enum LooseObject {
    /// The object types a loose file can hold, numbered as in a pack.
    package static let types: [String: ObjectType] = ["commit": .commit, "tree": .tree, "blob": .blob, "tag": .tag]

    /// The type and bytes of the object in `file` (its compressed bytes), refusing before any
    /// allocation an object whose header gives more than `largest` bytes.
    /// - Throws: ``FormatError`` when the header is malformed, the size is over `largest`
    ///   (``FormatError/isOverLimit``), or the data does not inflate to exactly that size.
    package static func read(_ file: UnsafeRawBufferPointer, largest: Int) throws(FormatError) -> (type: ObjectType, bytes: [UInt8]) {
        let inflater = try Zlib.Inflater(file)
        // The longest header: "commit " and twenty digits and the NUL.
        var head = [UInt8](repeating: 0, count: 32)
        let got = try inflater.fill(&head)
        let (type, size, start) = try header(head.prefix(got))
        guard size <= largest else {
            throw FormatError(.looseObject, "claims \(size) bytes, over the limit of \(largest)", claimed: size)
        }
        let already = min(got - start, size)
        var failure: FormatError?
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            initialized = 0
            do throws(FormatError) {
                guard got - start <= size else { throw FormatError(.looseObject, "it holds more than its header gives") }
                for index in 0..<already { buffer[index] = head[start + index] }
                let rest = UnsafeMutableRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(buffer)[already...])
                let filled = try inflater.fill(rest)
                guard already + filled == size, try inflater.isAtEnd() else {
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
