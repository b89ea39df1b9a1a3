internal import Glibc
internal import GitFormat

/// Where a ``PackWriter`` puts the pack it builds: in memory while it is small, then in a
/// temporary file of the pack folder it will be stored in, so that the memory a pack takes
/// does not grow with the pack (a pack sent over the network, with no folder, stays in memory).
/// Each entry's CRC-32 is computed as its bytes go by; the pack's checksum, once the count of
/// its header is known, from the bytes written (read back from the file, as git's
/// `fixup_pack_header_footer` does).
final class PackOutput {
    /// Bytes written so far: the offset of the next byte.
    private(set) var count = 0
    /// Bytes not yet in the file (all of them while there is none).
    private var buffer: [UInt8] = []
    private var file: TemporaryFile?
    private let folder: String?
    /// The CRC-32 of the bytes since the last ``takeCRC()``.
    private var crc: UInt32 = 0
    /// The size past which the bytes go to a file, and the largest piece kept before writing.
    static let spillAbove = 4 << 20

    /// An output that spills into a temporary file of `folder` (a pack folder, with a trailing
    /// slash) once it holds more than ``spillAbove`` bytes; nil keeps everything in memory.
    init(spillingInto folder: String?) {
        self.folder = folder
    }

    /// Appends `bytes`.
    /// - Throws: ``StoreError`` when the file cannot be written.
    func append(_ bytes: UnsafeRawBufferPointer) throws {
        guard bytes.count > 0 else { return }
        crc = Zlib.crc32(bytes, continuing: crc)
        count += bytes.count
        if file == nil, let folder, buffer.count + bytes.count > Self.spillAbove {
            mkdir(folder, 0o755)
            file = try TemporaryFile(at: folder + "building.tmp-\(getpid())-\(UInt64.random(in: 0...UInt64.max))", exclusive: true, readable: true)
        }
        if let file, buffer.count + bytes.count > Self.spillAbove {
            try file.write(buffer)
            buffer.removeAll(keepingCapacity: true)
            if bytes.count > Self.spillAbove {
                try file.write(bytes)
                return
            }
        }
        buffer.append(contentsOf: bytes)
    }

    /// Appends `bytes`.
    /// - Throws: ``StoreError`` when the file cannot be written.
    func append(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try append($0) }
    }

    /// The CRC-32 of the bytes appended since the last call (one entry's), starting the next.
    func takeCRC() -> UInt32 {
        defer { crc = 0 }
        return crc
    }

    /// Puts `header` (of the same length) in place of the first bytes, appends the SHA-1 of
    /// everything and returns it.
    /// - Throws: ``StoreError`` when the file cannot be written or read back.
    func finish(header: [UInt8]) throws -> [UInt8] {
        guard let file else {
            buffer.replaceSubrange(0..<header.count, with: header)
            let checksum = SHA1.digest(buffer)
            buffer += checksum
            count += checksum.count
            return checksum
        }
        try file.write(buffer)
        buffer = []
        try file.write(header, at: 0)
        let hasher = SHA1.Hasher()
        var piece = [UInt8](repeating: 0, count: 1 << 20)
        var offset = 0
        while offset < count {
            let got = try file.read(into: &piece, at: offset)
            piece.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[..<got])) }
            offset += got
        }
        let checksum = hasher.finish()
        try file.write(checksum)
        count += checksum.count
        return checksum
    }

    /// The finished pack: its bytes when it stayed in memory, else its temporary file.
    func take() -> (bytes: [UInt8]?, file: TemporaryFile?) {
        defer {
            buffer = []
            file = nil
        }
        return file == nil ? (buffer, nil) : (nil, file)
    }
}
