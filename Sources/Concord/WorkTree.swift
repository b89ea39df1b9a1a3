internal import FoundationEssentials
internal import Git
internal import GitFormat
#if canImport(Glibc)
internal import Glibc
#endif

/// The container's work tree: the files people edit.
///
/// Every path is reached from the root one component at a time, each folder opened with
/// `O_NOFOLLOW`: a symbolic link anywhere on a path is never followed, for reading or for
/// writing, so that nothing (a name from the cloud, a link a person made) can lead outside the
/// container. Writes are atomic (a temporary file in the same folder, fsync, rename, fsync of
/// the folder), so a reader or a crash sees the old file or the new one, never a mix.
struct WorkTree {
    /// The work tree's root, without a trailing slash.
    let root: String

    enum Kind: Equatable {
        case missing, file, directory, symlink, other
        /// A folder on the path is a symbolic link: the path is not followed.
        case behindLink
    }

    /// The full path, for messages and for the root's own files.
    func absolute(_ path: String) -> String { "\(root)/\(path)" }

    func kind(_ path: String) -> Kind {
        let (folder, name) = split(path)
        let parent: Descriptor
        do {
            parent = try open(folder, creating: false)
        } catch let error as Unreachable {
            return error.isLink ? .behindLink : .missing
        } catch {
            return .missing
        }
        guard let info = parent.status(of: name) else { return .missing }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .file
        case S_IFDIR: return .directory
        case S_IFLNK: return .symlink
        default: return .other
        }
    }

    /// The size in bytes of the regular file at `path`; nil when there is none.
    func fileSize(_ path: String) -> Int? {
        let (folder, name) = split(path)
        guard let parent = try? open(folder, creating: false), let info = parent.status(of: name),
            info.st_mode & S_IFMT == S_IFREG
        else { return nil }
        return Int(info.st_size)
    }

    /// Calls `body` with the regular file at `path` open for reading.
    /// - Throws: ``ConcordError/io(_:reason:)`` when it is missing, a link, or behind one.
    func withOpenFile<T>(_ path: String, _ body: (Int32) throws -> T) throws -> T {
        let (folder, name) = split(path)
        let parent = try reachable(folder, for: path)
        let descriptor = openat(parent.value, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { throw posixError(path, "cannot open") }
        defer { close(descriptor) }
        return try body(descriptor)
    }

    /// The first `limit` bytes of the regular file at `path`; nil when it is missing, a link,
    /// behind one, or not a regular file.
    func readPrefix(_ path: String, limit: Int) -> [UInt8]? {
        guard kind(path) == .file else { return nil }
        return try? withOpenFile(path) { descriptor in
            var info = stat()
            guard fstat(descriptor, &info) == 0 else { return nil }
            let size = min(Int(info.st_size), limit)
            var bytes = [UInt8](repeating: 0, count: size)
            var count = 0
            while count < size {
                let read = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + count, size - count) }
                if read < 0, errno == EINTR { continue }
                guard read > 0 else { break }
                count += read
            }
            return Array(bytes[..<count])
        }
    }

    /// Writes `bytes` to `path` atomically, creating folders as needed; a folder in the way of
    /// the file is removed. The file and its folder reach the disk before this returns (a
    /// ``Batch`` writes many files with two flushes in all).
    func write(_ path: String, mode: UInt32 = TreeEntry.fileMode, bytes: UnsafeRawBufferPointer) throws {
        let (folder, name) = split(path)
        let parent = try reachable(folder, for: path, creating: true)
        let temporary = try writeTemporary(bytes, mode: mode, in: parent, for: path, flushing: true)
        try moveIntoPlace(temporary, in: parent, as: name, path: path)
        parent.sync()
    }

    /// The prefix of the temporary files Concord writes beside a path before renaming them into
    /// place: never read as a document.
    static let temporaryPrefix = ".concord-tmp-"

    /// Writes `bytes` to a new temporary file in `parent` (flushed to the disk when `flushing`),
    /// and returns its name; removes it again when anything fails.
    func writeTemporary(_ bytes: UnsafeRawBufferPointer, mode: UInt32, in parent: Descriptor, for path: String, flushing: Bool) throws -> String {
        var names = SystemRandomNumberGenerator()
        let (temporary, descriptor) = try createTemporary(in: parent, executable: mode == TreeEntry.executableMode, for: path, names: &names)
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                let error = posixError(path, "cannot write")
                close(descriptor)
                unlinkat(parent.value, temporary, 0)
                throw error
            }
            offset += written
        }
        if (flushing && GitLibrary.durable && fsync(descriptor) != 0) || close(descriptor) != 0 {
            let error = posixError(path, "cannot flush to disk")
            unlinkat(parent.value, temporary, 0)
            throw error
        }
        return temporary
    }

    /// Creates a new temporary file in `parent`, open for writing, named from `names` (64 bits
    /// drawn; a name already taken is never opened: another is drawn, as mkstemp(3) does. With 32
    /// bits and no second draw, a clone of 100,000 documents once failed on a name taken).
    /// - Returns: its name and descriptor, the caller's to close.
    func createTemporary(in parent: Descriptor, executable: Bool, for path: String, names: inout some RandomNumberGenerator) throws -> (
        name: String, descriptor: Int32
    ) {
        let permissions: mode_t = executable ? 0o755 : 0o644
        for _ in 0..<100 {
            let name = "\(Self.temporaryPrefix)\(getpid())-\(UInt64.random(in: 0...UInt64.max, using: &names))"
            let descriptor = openat(parent.value, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, permissions)
            if descriptor >= 0 { return (name, descriptor) }
            if errno != EEXIST { break }
        }
        throw posixError(path, "cannot write")
    }

    /// Renames the temporary file `temporary` of `parent` to `name` (removing a folder in the
    /// way), without flushing the folder; removes the temporary file when the rename fails.
    func moveIntoPlace(_ temporary: String, in parent: Descriptor, as name: String, path: String) throws {
        do {
            if parent.status(of: name).map({ $0.st_mode & S_IFMT == S_IFDIR }) == true {
                try removeTree(name, in: parent, path: path)
            }
            guard renameat(parent.value, temporary, parent.value, name) == 0 else { throw posixError(path, "cannot replace") }
        } catch {
            unlinkat(parent.value, temporary, 0)
            throw error
        }
    }

    /// Flushes everything written on the work tree's file system to the disk, its files and
    /// folders with it: one `syncfs(2)`, which waits for the writes to finish.
    func syncFileSystem() throws {
        let descriptor = try reachable("", for: root)
        if let code = GitLibrary.syncFileSystem(containing: descriptor.value) {
            throw ConcordError.io(root, reason: "cannot flush to disk: \(String(cString: strerror(code)))")
        }
    }

    /// Removes the temporary files an interrupted write left in `folders` (relative to the root):
    /// the files named with ``temporaryPrefix``, which no document may be (``PathRules``).
    func removeTemporaryFiles(inFolders folders: [String]) {
        for folder in folders {
            guard let descriptor = try? open(folder, creating: false) else { continue }
            for name in (try? descriptor.names()) ?? [] where name.hasPrefix(Self.temporaryPrefix) {
                unlinkat(descriptor.value, name, 0)
            }
        }
    }

    /// Writes `data` to `path` atomically.
    func write(_ path: String, data: Data, mode: UInt32 = TreeEntry.fileMode) throws {
        try data.withUnsafeBytes { try write(path, mode: mode, bytes: $0) }
    }

    /// Removes a file (a folder: with everything in it), then the folders it leaves empty (never
    /// the root); each folder changed is flushed to the disk unless `syncing` is false (a
    /// ``Batch`` flushes once for all).
    func remove(_ path: String, syncing: Bool = true) throws {
        let (folder, name) = split(path)
        let parent: Descriptor
        do {
            parent = try open(folder, creating: false)
        } catch let error as Unreachable {
            // A missing folder holds nothing to remove; a link is never followed.
            guard error.isLink else { return }
            throw ConcordError.notWritable(path, reason: "'\(error.component)' is a symbolic link; links are never followed")
        }
        if unlinkat(parent.value, name, 0) != 0 {
            if errno == EISDIR || errno == EPERM, parent.status(of: name).map({ $0.st_mode & S_IFMT == S_IFDIR }) == true {
                try removeTree(name, in: parent, path: path)
            } else if errno != ENOENT {
                throw posixError(path, "cannot remove")
            }
        }
        if syncing { parent.sync() }
        var components = folder.slashSeparated().map(String.init)
        while let last = components.popLast() {
            guard let above = try? open(components.joined(separator: "/"), creating: false),
                unlinkat(above.value, last, AT_REMOVEDIR) == 0
            else { break }
            if syncing { above.sync() }
        }
    }

    /// Removes a folder and everything in it; links inside are removed, never followed.
    func removeTree(_ path: String) throws {
        let (folder, name) = split(path)
        try removeTree(name, in: try reachable(folder, for: path), path: path)
    }

    /// The names in a folder, sorted; empty when the folder is missing or behind a link.
    func names(inFolder folder: String) -> [String] {
        guard let descriptor = try? open(folder, creating: false) else { return [] }
        return (try? descriptor.names()) ?? []
    }

    /// The files below a package folder, as paths relative to it, sorted; refuses symlinks
    /// and anything that is not a regular file or folder. With `rules`, the files and folders
    /// they ignore are left out (a `.DS_Store` a system put in the package, say).
    func packageFiles(_ package: String, ignoring rules: IgnoreRules? = nil) throws -> [String] {
        var result: [String] = []
        func visit(_ relative: String) throws {
            let full = relative.isEmpty ? package : "\(package)/\(relative)"
            let folder = try reachable(full, for: full)
            for name in try folder.names() where !name.hasPrefix(Self.temporaryPrefix) {
                let child = relative.isEmpty ? name : "\(relative)/\(name)"
                let childKind = kind("\(package)/\(child)")
                if let rules, rules.ignoringRuleHere("\(package)/\(child)", isFolder: childKind == .directory) != nil { continue }
                switch childKind {
                case .file: result.append(child)
                case .directory: try visit(child)
                case .symlink, .behindLink: throw ConcordError.invalidPackage(package, reason: "'\(child)' is a symbolic link; links are never followed")
                case .other, .missing: throw ConcordError.invalidPackage(package, reason: "'\(child)' is not a regular file")
                }
            }
        }
        try visit("")
        return result
    }

    // MARK: Reaching folders

    /// An open folder; closed when the last reference goes.
    final class Descriptor {
        let value: Int32

        init(_ value: Int32) { self.value = value }

        deinit { close(value) }

        /// The status of `name` in this folder, not following a link.
        func status(of name: String) -> stat? {
            var info = stat()
            return fstatat(value, name, &info, AT_SYMLINK_NOFOLLOW) == 0 ? info : nil
        }

        /// The names this folder holds, sorted.
        func names() throws -> [String] {
            let copy = dup(value)
            guard copy >= 0, let stream = fdopendir(copy) else {
                throw ConcordError.io("(folder)", reason: "cannot list: \(String(cString: strerror(errno)))")
            }
            defer { closedir(stream) }
            var result: [String] = []
            while let entry = readdir(stream) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { buffer in
                    String(decoding: buffer.prefix { $0 != 0 }, as: UTF8.self)
                }
                if name != "." && name != ".." { result.append(name) }
            }
            return result.sorted()
        }

        /// True when a process has the regular file `name` of this folder open for writing: a
        /// read lease on it (`F_SETLEASE`, let go at once) is refused only then. False when it
        /// cannot be asked: a link, not a regular file, a file of someone else, a file system
        /// without leases.
        ///
        /// A writer opening the file in the moment the lease is held waits that moment (one
        /// opening with `O_NONBLOCK` is refused it); the kernel's notice of that opening is
        /// `SIGURG`, which a process ignores unless it asks for it, not the default `SIGIO`,
        /// which would end it.
        func isOpenForWriting(_ name: String) -> Bool {
            let file = openat(value, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
            guard file >= 0 else { return false }
            defer { close(file) }
            var info = stat()
            guard fstat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG, fcntl(file, Self.setSignal, SIGURG) == 0 else { return false }
            if fcntl(file, Self.setLease, Int32(F_RDLCK)) == 0 {
                _ = fcntl(file, Self.setLease, Int32(F_UNLCK))
                return false
            }
            return errno == EAGAIN
        }

        /// Linux's `F_SETLEASE` and `F_SETSIG` (fcntl.h declares them for `_GNU_SOURCE` only).
        private static let setLease: Int32 = 1024
        private static let setSignal: Int32 = 10

        func sync() {
            guard GitLibrary.durable else { return }
            fsync(value)
        }
    }

    /// Why a folder could not be opened: a component is a link (`isLink`), or is missing or not a folder.
    struct Unreachable: Error {
        var component: String
        var isLink: Bool
        var code: Int32
    }

    /// Opens `folder` (relative to the root, empty for the root) one component at a time,
    /// never following a link; with `creating`, missing folders are made.
    func open(_ folder: String, creating: Bool) throws -> Descriptor {
        let rootDescriptor = Glibc.open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard rootDescriptor >= 0 else { throw Unreachable(component: root, isLink: false, code: errno) }
        var current = Descriptor(rootDescriptor)
        var reached = ""
        for component in folder.slashSeparated().map(String.init) {
            reached = reached.isEmpty ? component : "\(reached)/\(component)"
            var next = openat(current.value, component, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if next < 0, errno == ENOENT, creating {
                if mkdirat(current.value, component, 0o755) != 0, errno != EEXIST {
                    throw Unreachable(component: reached, isLink: false, code: errno)
                }
                current.sync()
                next = openat(current.value, component, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            }
            guard next >= 0 else {
                let code = errno
                let isLink = current.status(of: component).map { $0.st_mode & S_IFMT == S_IFLNK } ?? false
                throw Unreachable(component: reached, isLink: isLink, code: code)
            }
            current = Descriptor(next)
        }
        return current
    }

    /// ``open(_:creating:)`` with a person's error: the link or the file in the way of `path`.
    func reachable(_ folder: String, for path: String, creating: Bool = false) throws -> Descriptor {
        do {
            return try open(folder, creating: creating)
        } catch let error as Unreachable {
            if error.isLink {
                throw ConcordError.notWritable(path, reason: "'\(error.component)' is a symbolic link; links are never followed")
            }
            if error.code == ENOTDIR || error.code == EEXIST {
                throw ConcordError.notWritable(path, reason: "'\(error.component)' is not a folder")
            }
            throw ConcordError.io(path, reason: "cannot reach '\(error.component)': \(String(cString: strerror(error.code)))")
        }
    }

    private func removeTree(_ name: String, in parent: Descriptor, path: String) throws {
        let descriptor = openat(parent.value, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { throw posixError(path, "cannot remove the folder") }
        let folder = Descriptor(descriptor)
        for child in try folder.names() {
            let isFolder = folder.status(of: child).map { $0.st_mode & S_IFMT == S_IFDIR } ?? false
            if isFolder {
                try removeTree(child, in: folder, path: "\(path)/\(child)")
            } else if unlinkat(folder.value, child, 0) != 0, errno != ENOENT {
                throw posixError("\(path)/\(child)", "cannot remove")
            }
        }
        if unlinkat(parent.value, name, AT_REMOVEDIR) != 0, errno != ENOENT {
            throw posixError(path, "cannot remove the folder")
        }
    }

    func split(_ path: String) -> (folder: String, name: String) {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return ("", path) }
        return (String(path[..<slash]), String(path[path.index(after: slash)...]))
    }

    /// The error for the failed call that set `errno`: a refusal of the name itself (too long,
    /// not valid for this file system, a link in the way) is ``ConcordError/notWritable(_:reason:)``.
    private func posixError(_ path: String, _ what: String) -> ConcordError {
        let code = errno
        let reason = "\(what): \(String(cString: strerror(code)))"
        switch code {
        case ENAMETOOLONG, EILSEQ, EINVAL, ELOOP, ENOTDIR: return ConcordError.notWritable(path, reason: reason)
        default: return ConcordError.io(path, reason: reason)
        }
    }
}
