internal import GitFormat

extension FuzzTarget {
    /// The largest entry a pack run inflates, and the most bytes of objects it keeps as bases.
    private static let largestEntry = 64 * 1024
    private static let keptBytes = 4 * 1024 * 1024

    /// A pack and its index. Input: a control byte, a start and an end to read one entry
    /// header at (2 bytes each), the index's length (2 bytes), the index, then the pack.
    ///
    /// The pack's entries are walked as an indexer walks them: each header is read
    /// (``Pack/entryHeader(in:at:end:)``: its data starts after it and before the trailer, its
    /// size is within ``Pack/largestDeclaredSize``, an offset delta's base lies before it), each
    /// entry of up to 64 KB is inflated to the size its header gives (the next entry starts
    /// where its data ends), and each offset delta whose base was read is applied to it (the
    /// answer compared with ``DeltaModel``). One header is also read at the start and end the
    /// input gives, whatever they are. When the index is valid, ``Pack/validate(_:against:)``
    /// must accept the pack exactly when its header and trailer match the index, and each
    /// offset the index gives is read. Control bits 0 and 1 make the pack match the index:
    /// the trailer becomes the index's checksum, the header's count the index's count (as
    /// libgit2's packfile fuzzer appends the checksum).
    static func pack(_ raw: UnsafeRawBufferPointer) throws(FuzzFailure) {
        var input = FuzzInput(raw)
        let control = input.number(bytes: 1)
        let probe = (start: input.number(bytes: 2), end: input.number(bytes: 2))
        let indexBytes = input.take(input.number(bytes: 2))
        var packBytes = input.rest()
        try withExactCopy(indexBytes) { indexBuffer throws(FuzzFailure) in
            let index = try? PackIndex(validating: indexBuffer)
            if let index, packBytes.count >= 32 {
                if control & 1 != 0 { packBytes.replaceSubrange((packBytes.count - 20)..., with: index.packChecksum) }
                if control & 2 != 0 { packBytes.replaceSubrange(8..<12, with: (0..<4).map { UInt8(truncatingIfNeeded: index.count >> (24 - 8 * $0)) }) }
            }
            try withExactCopy(packBytes) { pack throws(FuzzFailure) in
                try walkEntries(pack)
                try readHeader(pack, at: probe.start % (pack.count + 40) - 20, end: probe.end % (pack.count + 40) - 20)
                if let index { try checkValidation(pack, index) }
            }
        }
    }

    /// Reads the pack's entries one after the other, as an indexer does.
    private static func walkEntries(_ pack: UnsafeRawBufferPointer) throws(FuzzFailure) {
        guard pack.count >= 32 else { return }
        let end = pack.count - 20
        var objects: [Int: (type: Pack.EntryType, bytes: [UInt8])] = [:]
        var kept = 0
        var position = 12
        while position < end {
            guard let header = try readHeader(pack, at: position, end: end), header.size <= largestEntry else { return }
            let data = UnsafeRawBufferPointer(rebasing: pack[header.dataStart..<end])
            guard let (bytes, consumed) = try? Zlib.inflate(data, size: header.size) else { return }
            try expect(bytes.count == header.size && consumed > 0 && consumed <= data.count, "inflated \(bytes.count) of \(header.size) bytes using \(consumed) of \(data.count)")
            var object: (type: Pack.EntryType, bytes: [UInt8])?
            switch header.base {
            case nil: object = (header.type, bytes)
            case .offset(let base):
                if let base = objects[base] {
                    let target = try applied(bytes, to: base.bytes, largest: largestEntry)
                    object = target.map { (base.type, $0) }
                }
            case .id: break
            }
            if let object, kept + object.bytes.count <= keptBytes {
                objects[position] = object
                kept += object.bytes.count
            }
            position = header.dataStart + consumed
        }
    }

    /// The header at `start`, checked against what the format says; nil when refused.
    @discardableResult
    private static func readHeader(_ pack: UnsafeRawBufferPointer, at start: Int, end: Int) throws(FuzzFailure) -> Pack.EntryHeader? {
        guard let header = try? Pack.entryHeader(in: pack, at: start, end: end) else { return nil }
        try expect(start >= 12 && end <= pack.count, "read a header at \(start) up to \(end) in a pack of \(pack.count) bytes")
        try expect(header.dataStart > start && header.dataStart <= end, "the entry at \(start) has its data at \(header.dataStart), outside \(start)..<\(end)")
        try expect(header.size >= 0 && header.size <= Pack.largestDeclaredSize, "the entry at \(start) claims \(header.size) bytes")
        switch header.base {
        case nil: try expect(header.type.rawValue < 6, "a delta at \(start) has no base")
        case .offset(let base):
            try expect(header.type == .offsetDelta && base >= 12 && base < start, "the entry at \(start) has its base at \(base)")
        case .id: try expect(header.type == .referenceDelta && header.dataStart - start >= 21, "the entry at \(start) names a base by id without one")
        }
        return header
    }

    /// Validation of `pack` against a valid `index`, against the header and trailer read directly.
    private static func checkValidation(_ pack: UnsafeRawBufferPointer, _ index: PackIndex) throws(FuzzFailure) {
        let matches =
            pack.count >= 32 && pack.prefix(4).elementsEqual("PACK".utf8) && [2, 3].contains(word(pack, 4)) && word(pack, 8) == index.count
            && pack.suffix(20).elementsEqual(index.packChecksum)
        let accepted = (try? Pack.validate(pack, against: index)) != nil
        try expect(accepted == matches, "validate \(accepted ? "accepted" : "refused") a pack whose header and trailer \(matches ? "match" : "do not match") its index")
        guard accepted else { return }
        for number in 0..<index.count {
            guard let offset = try? index.offset(at: number, packSize: pack.count) else { continue }
            try readHeader(pack, at: offset, end: pack.count - 20)
        }
    }
}
