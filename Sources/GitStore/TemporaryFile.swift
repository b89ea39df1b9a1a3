internal import FoundationEssentials
internal import Glibc

/// A file written under a temporary name and renamed into place once complete: synced first
/// when durable, its folder synced after, so that a name never stands for a file cut short and
/// a file reported written survives a power cut. Removed if never finished (a killed writer's
/// are removed by the next writer: ``ObjectStore/removeTemporaryFiles()``).
final class TemporaryFile {
    /// Temporary names of loose objects start so (libgit2's own prefix, which the next writer
    /// removes alike).
    static let loosePrefix = "tmp_object_git2_concord_"

    private let path: String
    private var descriptor: Int32
    private var finished = false

    /// A new file in `folder` (with a trailing slash), named for a loose object being written.
    /// - Throws: ``StoreError`` when it cannot be created.
    convenience init(in folder: String) throws {
        try self.init(at: folder + Self.loosePrefix + "\(getpid())-\(UInt64.random(in: 0...UInt64.max))", exclusive: true)
    }

    /// A new file at `path`, open for reading back too when `readable`.
    /// - Throws: ``StoreError`` when it cannot be created.
    init(at path: String, exclusive: Bool = false, readable: Bool = false) throws {
        self.path = path
        descriptor = Glibc.open(path, (readable ? O_RDWR : O_WRONLY) | O_CREAT | O_CLOEXEC | O_NOFOLLOW | (exclusive ? O_EXCL : O_TRUNC), 0o444)
        guard descriptor >= 0 else { throw StoreError(.io, "cannot write \(path): \(String(cString: strerror(errno)))") }
    }

    deinit {
        if !finished {
            close(descriptor)
            unlink(path)
        }
    }

    /// Appends `bytes`, or writes them at `offset` when given.
    /// - Throws: ``StoreError`` when they cannot be written.
    func write(_ bytes: [UInt8], at offset: Int? = nil) throws {
        try bytes.withUnsafeBytes { try write($0, at: offset) }
    }

    /// Appends `buffer`, or writes it at `offset` when given.
    /// - Throws: ``StoreError`` when it cannot be written.
    func write(_ buffer: UnsafeRawBufferPointer, at offset: Int? = nil) throws {
        try RegularFile.write(buffer, to: descriptor, at: offset, path: path)
    }

    /// Reads into `buffer` from `offset` (a file opened `readable`).
    /// - Returns: how many bytes were read, at least one.
    /// - Throws: ``StoreError`` when nothing can be read there.
    func read(into buffer: inout [UInt8], at offset: Int) throws -> Int {
        while true {
            let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(offset)) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw StoreError(.io, "cannot read \(path) back: \(count < 0 ? String(cString: strerror(errno)) : "it is cut short")") }
            return count
        }
    }

    /// Syncs the file (when `durable`), renames it to `destination` (making its folder when
    /// missing) and syncs that folder.
    /// - Throws: ``StoreError`` when it cannot be synced or renamed.
    func finish(at destination: String, durable: Bool) throws {
        if durable, fsync(descriptor) != 0 { throw StoreError(.io, "cannot write \(path): \(String(cString: strerror(errno)))") }
        close(descriptor)
        finished = true
        let folder = PathText.folder(of: destination)
        var made = false
        if mkdir(folder, 0o755) == 0 { made = true }
        guard rename(path, destination) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(path)
            throw StoreError(.io, "cannot write \(destination): \(reason)")
        }
        guard durable else { return }
        Self.sync(folder)
        if made { Self.sync(PathText.folder(of: folder)) }
    }

    private static func sync(_ folder: String) {
        let descriptor = Glibc.open(folder, O_RDONLY | O_CLOEXEC | O_DIRECTORY)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }
}
