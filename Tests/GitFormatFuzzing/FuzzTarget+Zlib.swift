internal import GitFormat

extension FuzzTarget {
    /// A zlib stream and its declared size. Input: the size (3 bytes; over 1 MB it is refused
    /// before inflating, as every caller does), a step (1 byte), then the stream.
    ///
    /// ``Zlib/inflate(_:size:)`` must give exactly `size` bytes or refuse, and what a
    /// ``Zlib/Inflater`` gives filling buffers of `step + 1` bytes one after the other must be
    /// the same answer: the same bytes, the same count of input bytes used, or a refusal.
    static func zlib(_ raw: UnsafeRawBufferPointer) throws(FuzzFailure) {
        var input = FuzzInput(raw)
        let size = input.number(bytes: 3)
        let step = input.number(bytes: 1) + 1
        guard size <= 1 << 20 else { return }
        try withExactCopy(input.rest()) { stream throws(FuzzFailure) in
            let whole = try? Zlib.inflate(stream, size: size)
            if let whole {
                try expect(
                    whole.bytes.count == size && whole.consumed > 0 && whole.consumed <= stream.count,
                    "inflated \(whole.bytes.count) of \(size) bytes using \(whole.consumed) of \(stream.count)")
            }
            let stepped = try? inflateInSteps(stream, size: size, step: step)
            try expect(
                whole?.bytes == stepped?.bytes && whole?.consumed == stepped?.consumed,
                "inflating whole gave \(whole.map { "\($0.bytes.count) bytes" } ?? "a refusal"), in steps of \(step) \(stepped.map { "\($0.bytes.count) bytes" } ?? "a refusal")")
        }
    }

    private static func inflateInSteps(_ stream: UnsafeRawBufferPointer, size: Int, step: Int) throws(FormatError) -> (bytes: [UInt8], consumed: Int)? {
        let inflater = try Zlib.Inflater(stream)
        var output = [UInt8](repeating: 0, count: size)
        var filled = 0
        while filled < size {
            var piece = [UInt8](repeating: 0, count: min(step, size - filled))
            let got = try inflater.fill(&piece)
            output.replaceSubrange(filled..<(filled + got), with: piece.prefix(got))
            filled += got
            if got < piece.count { break }
        }
        guard filled == size, try inflater.isAtEnd() else { return nil }
        return (output, inflater.consumed)
    }

    /// A loose object's file under a limit. Input: the largest object allowed (2 bytes), then
    /// the file.
    ///
    /// ``LooseObject/read(_:largest:)`` must give an object exactly when its header (read from
    /// the first bytes inflated) is well formed with a size within the limit and the whole
    /// stream inflates to the header and that many bytes; then its type and bytes are those.
    /// A refusal marked over the limit must come from a size over it. The same bytes, not
    /// inflated, also go to ``LooseObject/header(_:)``, whose answer must spell the bytes it read.
    static func looseObject(_ raw: UnsafeRawBufferPointer) throws(FuzzFailure) {
        var input = FuzzInput(raw)
        let largest = input.number(bytes: 2)
        let file = input.rest()
        try checkHeader(file[...])
        try withExactCopy(file) { bytes throws(FuzzFailure) in
            let result = Result { () throws(FormatError) in try LooseObject.read(bytes, largest: largest) }
            let header: (type: ObjectType, size: Int, end: Int)? = {
                guard let inflater = try? Zlib.Inflater(bytes) else { return nil }
                var head = [UInt8](repeating: 0, count: 32)
                guard let got = try? inflater.fill(&head) else { return nil }
                return try? LooseObject.header(head.prefix(got))
            }()
            switch result {
            case .success(let object):
                try expect(object.bytes.count <= largest, "read an object of \(object.bytes.count) bytes over the limit of \(largest)")
                try expect(
                    header?.type == object.type && header?.size == object.bytes.count,
                    "read a \(object.type) of \(object.bytes.count) bytes where the header gives \(String(describing: header))")
            case .failure(let error) where error.isOverLimit:
                try expect((header?.size ?? 0) > largest, "refused as over the limit of \(largest) an object whose header gives \(String(describing: header))")
            case .failure:
                break
            }
            guard let header, header.size <= largest else { return }
            let whole = try? Zlib.inflate(bytes, size: header.end + header.size)
            let expected = whole.map { Array($0.bytes[header.end...]) }
            try expect(
                (try? result.get().bytes) == expected,
                "read \((try? result.get()).map { "\($0.bytes.count) bytes" } ?? "a refusal") where inflating the whole file gives \(expected.map { "\($0.count) bytes" } ?? "a refusal")"
            )
        }
    }

    /// ``LooseObject/header(_:)`` on raw bytes: what it accepts must be `<type> <size>\0` spelled
    /// exactly as git writes it.
    private static func checkHeader(_ bytes: ArraySlice<UInt8>) throws(FuzzFailure) {
        guard let header = try? LooseObject.header(bytes) else { return }
        let name = LooseObject.types.first { $0.value == header.type }?.key ?? "?"
        let spelled = Array("\(name) \(header.size)".utf8) + [0]
        try expect(bytes.prefix(header.end).elementsEqual(spelled), "header(_:) read \(name) of \(header.size) bytes from bytes that do not spell it")
    }
}
