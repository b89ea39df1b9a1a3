internal import CZlib

/// Inflating what git compresses (pack entries, loose objects), to a size known before any
/// memory is spent: the caller checks the declared size against its limits first, the output
/// is allocated once at that size, and inflation stops there. A stream that ends early, goes
/// on past that size, or is damaged is refused.
package enum Zlib {
    /// The bytes `stream` inflates to, which must be exactly `size`, with how many bytes of
    /// `stream` the compressed data took (bytes after its end are left alone).
    /// - Throws: ``FormatError`` when the data is damaged or does not inflate to `size` bytes.
    package static func inflate(_ stream: UnsafeRawBufferPointer, size: Int) throws(FormatError) -> (bytes: [UInt8], consumed: Int) {
        let inflater = try Inflater(stream)
        var failure: FormatError?
        // Every byte is written by zlib, or the output is dropped.
        let output = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            do throws(FormatError) {
                let filled = try inflater.fill(UnsafeMutableRawBufferPointer(buffer))
                guard filled == size, try inflater.isAtEnd() else {
                    throw FormatError(.zlib, "it does not inflate to the \(size) bytes its header gives")
                }
                initialized = size
            } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        return (output, inflater.consumed)
    }

    /// How hard ``deflate(_:level:appendingTo:)`` compresses.
    package enum Level {
        /// Stored: framed as zlib, not compressed.
        case none
        /// zlib's fastest.
        case fastest
        /// zlib's default.
        case standard

        var zlib: Int32 {
            switch self {
            case .none: Z_NO_COMPRESSION
            case .fastest: Z_BEST_SPEED
            case .standard: Z_DEFAULT_COMPRESSION
            }
        }
    }

    /// Appends `data` deflated at `level` to `output`, with a window and tables no wider than it
    /// needs: zlib sets up and clears memory for its default window (its hash table alone is
    /// 64 KB) before each stream, which was most of the cost of deflating the small objects of a
    /// commit. The window is the smallest that holds `data`, the hash table has as many heads as
    /// the window has bytes and the buffer of pending symbols half as many, in the proportions
    /// of zlib's defaults.
    /// - Throws: ``FormatError`` when zlib fails (out of memory).
    package static func deflate(_ data: UnsafeRawBufferPointer, level: Level, appendingTo output: inout [UInt8]) throws(FormatError) {
        var windowBits: Int32 = 9
        while windowBits < 15, (1 << windowBits) - 262 < data.count { windowBits += 1 }  // 262: zlib's MIN_LOOKAHEAD
        let memoryLevel = windowBits - 7  // zlib's memLevel: 2^(memLevel + 7) heads, 2^(memLevel + 6) pending symbols
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer { stream.deallocate() }
        let initialized = deflateInit2_(
            stream, level.zlib, Z_DEFLATED, windowBits, memoryLevel, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard initialized == Z_OK else { throw FormatError(.zlib, "zlib cannot start compressing (error \(initialized))") }
        defer { deflateEnd(stream) }
        let bound = Int(deflateBound(stream, uLong(data.count)))
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: bound))
        let status = output.withUnsafeMutableBytes { buffer in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: data.baseAddress?.assumingMemoryBound(to: Bytef.self))
            stream.pointee.avail_in = uInt(data.count)
            stream.pointee.next_out = buffer.baseAddress!.advanced(by: start).assumingMemoryBound(to: Bytef.self)
            stream.pointee.avail_out = uInt(bound)
            return CZlib.deflate(stream, Z_FINISH)
        }
        guard status == Z_STREAM_END else { throw FormatError(.zlib, "zlib cannot compress (error \(status))") }
        output.removeLast(bound - Int(stream.pointee.total_out))
    }

    /// A zlib stream deflated step by step (a file streamed into a loose object): each piece
    /// given comes back compressed, as far as zlib has gone.
    package final class Deflater {
        private let stream: UnsafeMutablePointer<z_stream>

        /// Starts a stream at `level`.
        /// - Throws: ``FormatError`` when zlib cannot start.
        package init(level: Level) throws(FormatError) {
            stream = .allocate(capacity: 1)
            stream.initialize(to: z_stream())
            let status = deflateInit_(stream, level.zlib, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
            guard status == Z_OK else {
                stream.deallocate()
                throw FormatError(.zlib, "zlib cannot start compressing (error \(status))")
            }
        }

        deinit {
            deflateEnd(stream)
            stream.deallocate()
        }

        /// Compresses `input` (the last piece when `finish`), appending what zlib produced to `output`.
        /// - Throws: ``FormatError`` when zlib fails.
        package func deflate(_ input: UnsafeRawBufferPointer, finish: Bool, appendingTo output: inout [UInt8]) throws(FormatError) {
            stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
            stream.pointee.avail_in = uInt(input.count)
            var chunk = [UInt8](repeating: 0, count: 64 << 10)
            while true {
                let (status, produced) = chunk.withUnsafeMutableBytes { buffer in
                    stream.pointee.next_out = buffer.baseAddress!.assumingMemoryBound(to: Bytef.self)
                    stream.pointee.avail_out = uInt(buffer.count)
                    let status = CZlib.deflate(stream, finish ? Z_FINISH : Z_NO_FLUSH)
                    return (status, buffer.count - Int(stream.pointee.avail_out))
                }
                output.append(contentsOf: chunk[..<produced])
                if finish ? status == Z_STREAM_END : stream.pointee.avail_in == 0 && stream.pointee.avail_out > 0 { return }
                guard status == Z_OK || status == Z_BUF_ERROR else { throw FormatError(.zlib, "zlib cannot compress (error \(status))") }
            }
        }
    }

    /// The CRC-32 of `bytes` (as a pack index records each entry's), or of the bytes whose
    /// CRC-32 is `previous` followed by `bytes`.
    package static func crc32(_ bytes: UnsafeRawBufferPointer, continuing previous: UInt32 = 0) -> UInt32 {
        UInt32(CZlib.crc32(uLong(previous), bytes.baseAddress?.assumingMemoryBound(to: Bytef.self), uInt(bytes.count)))
    }

    /// A zlib stream inflated step by step into buffers the caller gives. zlib's state points
    /// back at its stream, so the stream lives at one address, allocated here.
    package final class Inflater {
        private let stream: UnsafeMutablePointer<z_stream>

        /// Starts inflating `input`, which must outlive this inflater.
        /// - Throws: ``FormatError`` when zlib cannot start.
        package init(_ input: UnsafeRawBufferPointer) throws(FormatError) {
            stream = .allocate(capacity: 1)
            stream.initialize(to: z_stream())
            guard inflateInit_(stream, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
                stream.deallocate()
                throw FormatError(.zlib, "zlib cannot start")
            }
            stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
            stream.pointee.avail_in = uInt(clamping: input.count)
        }

        deinit {
            inflateEnd(stream)
            stream.deallocate()
        }

        /// How many input bytes were used so far.
        package var consumed: Int { Int(stream.pointee.total_in) }

        /// Inflates into `output` until it is full or the stream ends.
        /// - Returns: how many bytes were written.
        /// - Throws: ``FormatError`` when the data is damaged or cut short.
        package func fill(_ output: UnsafeMutableRawBufferPointer) throws(FormatError) -> Int {
            guard output.count > 0 else { return 0 }
            var written = 0
            while written < output.count {
                let status: Int32
                (status, written) = step(into: output, from: written)
                if status == Z_STREAM_END { break }
                guard status == Z_OK else {
                    throw FormatError(.zlib, status == Z_BUF_ERROR ? "the stream is cut short" : "the stream is damaged (zlib error \(status))")
                }
            }
            return written
        }

        /// One call of zlib's inflate into `output` from `written` on: its status, and how much
        /// of `output` is written after it.
        private func step(into output: UnsafeMutableRawBufferPointer, from written: Int) -> (status: Int32, written: Int) {
            stream.pointee.next_out = output.baseAddress!.advanced(by: written).assumingMemoryBound(to: Bytef.self)
            let room = min(output.count - written, Int(UInt32.max))
            stream.pointee.avail_out = uInt(room)
            let status = CZlib.inflate(stream, Z_NO_FLUSH)
            return (status, written + room - Int(stream.pointee.avail_out))
        }

        /// Inflates `piece`, the next part of the stream (when the input given at the start ran
        /// out), into `output` until the piece is used up, `output` is full or the stream ends.
        /// - Returns: how many bytes of `piece` were used and of `output` written, and whether
        ///   the stream ended.
        /// - Throws: ``FormatError`` when the data is damaged.
        package func inflate(piece: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws(FormatError) -> (
            consumed: Int, written: Int, ended: Bool
        ) {
            let given = min(piece.count, Int(UInt32.max))
            stream.pointee.next_in = UnsafeMutablePointer(mutating: piece.baseAddress?.assumingMemoryBound(to: Bytef.self))
            stream.pointee.avail_in = uInt(given)
            defer {
                stream.pointee.next_in = nil
                stream.pointee.avail_in = 0
            }
            var written = 0
            while written < output.count {
                let status: Int32
                (status, written) = step(into: output, from: written)
                if status == Z_STREAM_END { return (given - Int(stream.pointee.avail_in), written, true) }
                if status == Z_BUF_ERROR, stream.pointee.avail_in == 0 { break }
                guard status == Z_OK else { throw FormatError(.zlib, "the stream is damaged (zlib error \(status))") }
                if stream.pointee.avail_in == 0, stream.pointee.avail_out > 0 { break }
            }
            return (given - Int(stream.pointee.avail_in), written, false)
        }

        /// Inflates into the start of `array` (see ``fill(_:)-(UnsafeMutableRawBufferPointer)``).
        package func fill(_ array: inout [UInt8]) throws(FormatError) -> Int {
            var result: Result<Int, FormatError> = .success(0)
            array.withUnsafeMutableBytes { buffer in
                do throws(FormatError) { result = .success(try fill(buffer)) } catch { result = .failure(error) }
            }
            return try result.get()
        }

        /// True when the stream ends exactly here: nothing more inflates from it.
        /// - Throws: ``FormatError`` when the data is damaged.
        package func isAtEnd() throws(FormatError) -> Bool {
            var probe: UInt8 = 0
            let (status, left) = withUnsafeMutableBytes(of: &probe) { byte in
                stream.pointee.next_out = byte.baseAddress!.assumingMemoryBound(to: Bytef.self)
                stream.pointee.avail_out = 1
                return (CZlib.inflate(stream, Z_NO_FLUSH), stream.pointee.avail_out)
            }
            guard status == Z_STREAM_END || status == Z_OK || status == Z_BUF_ERROR else {
                throw FormatError(.zlib, "the stream is damaged (zlib error \(status))")
            }
            return status == Z_STREAM_END && left == 1
        }
    }
}
