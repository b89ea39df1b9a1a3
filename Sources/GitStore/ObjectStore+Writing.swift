internal import FoundationEssentials
package import GitFormat
internal import Glibc

extension ObjectStore {
    /// Writes an object of `type` holding `bytes` and returns its id: into the pack being
    /// written when there is one (``writingOnePack(streamingAbove:flushingAt:_:)``), else as a
    /// loose file, synced before it is renamed into place. An object already held is not
    /// written again.
    /// - Throws: ``StoreError`` when the file cannot be written.
    @discardableResult
    package func write(_ type: ObjectType, _ bytes: [UInt8]) throws -> OID {
        let id = bytes.withUnsafeBytes { SHA1.id(of: type, $0) }
        if let session, type != .blob || bytes.count <= session.streamingAbove {
            guard session.objects[id] == nil else { return id }
            session.add(id, ObjectBytes(type: type, bytes: bytes))
            if session.isFull { try flushSession() }
            return id
        }
        guard !contains(id) else { return id }
        try writeLoose(id, type, bytes)
        return id
    }

    /// Writes the open file `descriptor` (from its current offset to its end) as a blob and
    /// returns its id, streaming it: hashed and compressed as it is read, into a loose file,
    /// so that memory does not grow with the file (a small one goes into the pack being
    /// written, when there is one). `name` is only for messages.
    /// - Throws: ``StoreError`` when the file cannot be read, changes size while being read, or
    ///   the object cannot be written.
    package func writeBlob(from descriptor: Int32, name: String) throws -> OID {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw StoreError(.io, "cannot read \(name): \(String(cString: strerror(errno)))") }
        let size = Int(status.st_size) - Int(lseek(descriptor, 0, SEEK_CUR))
        if let session, size <= session.streamingAbove {
            return try write(.blob, try Self.readAll(descriptor, size: size, name: name))
        }
        let hasher = SHA1.Hasher()
        let deflater = try readingFormat { try Zlib.Deflater(level: size > 65536 ? .fastest : .standard) }
        let header = Array("blob \(size)\0".utf8)
        header.withUnsafeBytes { hasher.update($0) }
        let temporary = try TemporaryFile(in: path)
        var compressed: [UInt8] = []
        try header.withUnsafeBytes { header in try readingFormat { try deflater.deflate(header, finish: false, appendingTo: &compressed) } }
        var buffer = [UInt8](repeating: 0, count: min(max(size, 1), 1 << 20))
        var remaining = size
        while remaining > 0 {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, min($0.count, remaining)) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                throw StoreError(.io, count < 0 ? "cannot read \(name): \(String(cString: strerror(errno)))" : "\(name) shrank while being read")
            }
            remaining -= count
            try buffer.withUnsafeBytes { bytes in
                let piece = UnsafeRawBufferPointer(rebasing: bytes[..<count])
                hasher.update(piece)
                try readingFormat { try deflater.deflate(piece, finish: remaining == 0, appendingTo: &compressed) }
            }
            try temporary.write(compressed)
            compressed.removeAll(keepingCapacity: true)
            if remaining > 0 { CrashPoint.reach("blob:streaming") }
        }
        if size == 0 {
            try readingFormat { try deflater.deflate(UnsafeRawBufferPointer(start: nil, count: 0), finish: true, appendingTo: &compressed) }
            try temporary.write(compressed)
        }
        let id = hasher.finish().withUnsafeBytes { OID(unchecked: $0) }
        guard !contains(id) else { return id }
        try temporary.finish(at: loosePath(id), durable: durable)
        return id
    }

    /// Runs `body` with every object it writes kept in memory, then stored as one pack: one
    /// file synced once instead of one synced file per object. References must not name the
    /// new objects before they are stored, so a writer that moves one inside `body` calls
    /// ``flushSession()`` first. A blob larger than `streamingAbove` bytes goes to disk
    /// directly, and the pack is stored whenever the blobs held reach `flushingAt` bytes, so
    /// memory stays bounded. If `body` throws, the objects it wrote are dropped (nothing names
    /// them). Inside another such call, `body` joins that one.
    /// - Throws: ``StoreError`` when the pack cannot be stored, or what `body` throws.
    package func writingOnePack<T>(streamingAbove: Int = 8 << 20, flushingAt: Int = 64 << 20, _ body: () throws -> T) throws -> T {
        if session != nil { return try body() }
        session = PackSession(streamingAbove: streamingAbove, flushingAt: flushingAt)
        defer { session = nil }
        let result = try body()
        try flushSession()
        return result
    }

    /// Stores what the pack being written holds so far, as one pack (nothing when there is no
    /// such pack, or it holds nothing). Objects are stored whole, in the order written: they
    /// were made here, so nothing searches for deltas or hashes them again.
    /// - Throws: ``StoreError`` when the pack cannot be stored.
    package func flushSession() throws {
        guard let session, !session.order.isEmpty else { return }
        var writer = try PackWriter(thin: false, spillingInto: path + "pack/")
        for id in session.order where !packs.contains(id) {
            try writer.add(id, previous: nil) { id in
                guard let object = session.objects[id] else { throw self.notFound(id) }
                return object
            }
        }
        if writer.count > 0 {
            _ = try storePack(&writer)
            CrashPoint.reach("pack:stored")
        }
        session.clear()
    }

    /// Finishes and stores a complete pack that Concord wrote into this store's pack folder
    /// (every delta's base inside it; ``PackWriter/finish()``) with the index the writer made
    /// for it (``PackWriter/index()``): each file under a temporary name (a large pack is in
    /// one already, written as it was built), synced and renamed into place, the pack before
    /// its index, then the folder synced. Nothing is unpacked or hashed again, so this is for
    /// objects Concord made, holds, or has just hashed.
    /// - Returns: the pack's file name, `pack-<hash>.pack`.
    /// - Throws: ``StoreError`` when a file cannot be written.
    @discardableResult
    package func storePack(_ writer: inout PackWriter) throws -> String {
        let checksum = try writer.finish()
        let index = writer.index()
        let (bytes, file) = writer.finished()
        let folder = path + "pack"
        let name = "pack-\(OID(bytes: checksum)!.hex)"
        let stem = "\(folder)/\(name)"
        if access(stem + ".idx", F_OK) == 0 { return name + ".pack" }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let pack = try file ?? TemporaryFile(at: stem + ".pack.tmp-\(getpid())")
        if let bytes { try pack.write(bytes) }
        try pack.finish(at: stem + ".pack", durable: durable)
        let indexFile = try TemporaryFile(at: stem + ".idx.tmp-\(getpid())")
        try indexFile.write(index)
        try indexFile.finish(at: stem + ".idx", durable: durable)
        refresh()
        return name + ".pack"
    }

    /// Writes a loose object: compressed, into a temporary file beside where it goes, synced,
    /// renamed into place, its folder synced.
    private func writeLoose(_ id: OID, _ type: ObjectType, _ bytes: [UInt8]) throws {
        var compressed: [UInt8] = []
        let header = Array("\(type.name) \(bytes.count)\0".utf8)
        try readingFormat {
            let deflater = try Zlib.Deflater(level: bytes.count > 65536 ? .fastest : .standard)
            try header.withUnsafeBytes { try deflater.deflate($0, finish: false, appendingTo: &compressed) }
            try bytes.withUnsafeBytes { try deflater.deflate($0, finish: true, appendingTo: &compressed) }
        }
        let temporary = try TemporaryFile(in: path)
        try temporary.write(compressed)
        try temporary.finish(at: loosePath(id), durable: durable)
    }

    private static func readAll(_ descriptor: Int32, size: Int, name: String) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: size)
        var done = 0
        while done < size {
            let count = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + done, size - done) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                throw StoreError(.io, count < 0 ? "cannot read \(name): \(String(cString: strerror(errno)))" : "\(name) shrank while being read")
            }
            done += count
        }
        return bytes
    }
}
