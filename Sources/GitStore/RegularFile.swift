package import FoundationEssentials
internal import Glibc

/// The one way Concord opens a file of a repository it reads itself (a pack, an index, a loose
/// object, a reference): without following a link, without waiting (a FIFO where a file should
/// be would block a plain open forever), and only when `fstat` says it is a regular file, of a
/// size checked before anything is read or mapped.
package enum RegularFile {
    /// An open regular file and its size.
    package struct Opened {
        /// The descriptor, which the caller closes.
        package let descriptor: Int32
        /// Its size in bytes.
        package let size: Int
    }

    /// Opens `path` for reading.
    /// - Throws: ``StoreError`` when it cannot be opened, is not a regular file, or
    ///   holds more than `largest` bytes.
    package static func open(_ path: String, largest: Int = .max) throws -> Opened {
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW)
        guard descriptor >= 0 else {
            let reason = errno == ELOOP ? "it is a symbolic link" : String(cString: strerror(errno))
            throw problem(path, reason, kind: errno == ENOENT ? .notFound : .damaged)
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw problem(path, reason)
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw problem(path, "it is not a regular file")
        }
        guard Int(status.st_size) <= largest else {
            close(descriptor)
            throw problem(path, "it holds \(status.st_size) bytes, more than the \(largest) it may")
        }
        return Opened(descriptor: descriptor, size: Int(status.st_size))
    }

    /// The size in bytes of what `path` names (a link itself, not what it points to); nil when
    /// there is nothing there.
    package static func size(of path: String) -> Int? {
        var status = stat()
        return lstat(path, &status) == 0 ? Int(status.st_size) : nil
    }

    /// The whole of `path`, read after ``open(_:largest:)``.
    package static func read(_ path: String, largest: Int) throws -> [UInt8] {
        let file = try open(path, largest: largest)
        defer { close(file.descriptor) }
        var bytes = [UInt8](repeating: 0, count: file.size)
        var done = 0
        while done < file.size {
            let got = bytes.withUnsafeMutableBytes { pread(file.descriptor, $0.baseAddress! + done, file.size - done, off_t(done)) }
            if got < 0, errno == EINTR || errno == EAGAIN { continue }
            guard got > 0 else { throw problem(path, got < 0 ? String(cString: strerror(errno)) : "it shrank while being read") }
            done += got
        }
        return bytes
    }

    /// A reader of the open `file` (of `path`) from its start, a megabyte at a time: each call
    /// gives the next piece, nil once the size ``open(_:largest:)`` found is read.
    package static func pieces(of file: Opened, path: String) -> () throws -> [UInt8]? {
        var offset = 0
        return {
            guard offset < file.size else { return nil }
            var piece = [UInt8](repeating: 0, count: min(1 << 20, file.size - offset))
            var done = 0
            while done < piece.count {
                let got = piece.withUnsafeMutableBytes { pread(file.descriptor, $0.baseAddress! + done, $0.count - done, off_t(offset + done)) }
                if got < 0, errno == EINTR || errno == EAGAIN { continue }
                guard got > 0 else { throw problem(path, got < 0 ? String(cString: strerror(errno)) : "it shrank while being read") }
                done += got
            }
            offset += piece.count
            return piece
        }
    }

    /// The open file mapped read-only; nil when it is empty.
    /// - Throws: ``StoreError`` when it cannot be mapped.
    package static func map(_ file: Opened, path: String) throws -> UnsafeRawBufferPointer? {
        guard file.size > 0 else { return nil }
        guard let start = mmap(nil, file.size, PROT_READ, MAP_PRIVATE, file.descriptor, 0), start != MAP_FAILED else {
            throw problem(path, String(cString: strerror(errno)))
        }
        return UnsafeRawBufferPointer(start: start, count: file.size)
    }

    /// The names of the entries of the folder `path` (without `.` and `..`), in the order the
    /// file system gives them; empty when it cannot be listed. (Foundation's
    /// `contentsOfDirectory` cost 270,000 instructions the first time, at each command's start.)
    package static func names(in path: String) -> [String] {
        guard let stream = opendir(path) else { return [] }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// True when `path` names a regular file (a link is not followed).
    package static func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
    }

    /// Writes `bytes` into the file at `path` (made when missing; a link is refused): at
    /// `offset`, cutting off what followed, or after its end when `offset` is nil.
    /// - Throws: ``StoreError`` when it cannot be opened or written.
    package static func write(_ bytes: some ContiguousBytes, to path: String, at offset: Int?) throws {
        let descriptor = Glibc.open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | (offset == nil ? O_APPEND : 0), 0o644)
        guard descriptor >= 0 else { throw StoreError(.io, "cannot write \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        if let offset, ftruncate(descriptor, off_t(offset)) != 0 {
            throw StoreError(.io, "cannot write \(path): \(String(cString: strerror(errno)))")
        }
        try bytes.withUnsafeBytes { try write($0, to: descriptor, at: offset, path: path) }
    }

    /// Writes all of `buffer` to `descriptor` (the file at `path`): at `offset`, or where the
    /// descriptor stands when nil.
    /// - Throws: ``StoreError`` when it cannot be written.
    package static func write(_ buffer: UnsafeRawBufferPointer, to descriptor: Int32, at offset: Int?, path: String) throws {
        var written = 0
        while written < buffer.count {
            let count =
                if let offset {
                    pwrite(descriptor, buffer.baseAddress! + written, buffer.count - written, off_t(offset + written))
                } else {
                    Glibc.write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw StoreError(.io, "cannot write \(path): \(String(cString: strerror(errno)))") }
            written += count
        }
    }

    private static func problem(_ path: String, _ reason: String, kind: StoreError.Kind = .damaged) -> StoreError {
        StoreError(kind, "cannot read \(path): \(reason)")
    }
}
