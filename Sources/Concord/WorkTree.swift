internal import Foundation
internal import Git
#if canImport(Glibc)
internal import Glibc
#endif

/// The container's work tree: the files people edit. Writes are atomic (a temporary file in
/// the same folder, fsync, rename, fsync of the folder), so a reader or a crash sees the old
/// file or the new one, never a mix.
struct WorkTree {
    /// The work tree's root, without a trailing slash.
    let root: String

    enum Kind: Equatable { case missing, file, directory, symlink, other }

    func absolute(_ path: String) -> String { "\(root)/\(path)" }

    func kind(_ path: String) -> Kind {
        var info = stat()
        guard lstat(absolute(path), &info) == 0 else { return .missing }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .file
        case S_IFDIR: return .directory
        case S_IFLNK: return .symlink
        default: return .other
        }
    }

    func isExecutable(_ path: String) -> Bool {
        var info = stat()
        guard lstat(absolute(path), &info) == 0 else { return false }
        return info.st_mode & S_IXUSR != 0
    }

    /// Writes `bytes` to `path` atomically, creating folders as needed.
    func write(_ path: String, mode: UInt32 = TreeEntry.fileMode, bytes: UnsafeRawBufferPointer) throws {
        let target = absolute(path)
        let folder = (target as NSString).deletingLastPathComponent
        try makeFolders(folder)
        let temporary = "\(folder)/.concord-tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let permissions: mode_t = mode == TreeEntry.executableMode ? 0o755 : 0o644
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, permissions)
        guard descriptor >= 0 else { throw posixError(path, "cannot write") }
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                let error = posixError(path, "cannot write")
                close(descriptor)
                unlink(temporary)
                throw error
            }
            offset += written
        }
        if (GitLibrary.durable && fsync(descriptor) != 0) || close(descriptor) != 0 {
            let error = posixError(path, "cannot flush to disk")
            unlink(temporary)
            throw error
        }
        if kind(path) == .directory { try removeTree(path) }
        guard rename(temporary, target) == 0 else {
            let error = posixError(path, "cannot replace")
            unlink(temporary)
            throw error
        }
        syncFolder(folder)
    }

    /// Writes `data` to `path` atomically.
    func write(_ path: String, data: Data, mode: UInt32 = TreeEntry.fileMode) throws {
        try data.withUnsafeBytes { try write(path, mode: mode, bytes: $0) }
    }

    /// Writes the blob `id` to `path` atomically, without copying it into a Swift buffer.
    func write(_ path: String, blob id: OID, mode: UInt32, from repository: Repository) throws {
        try repository.withBlob(id) { try write(path, mode: mode, bytes: $0) }
    }

    /// Removes a file, then the folders it leaves empty (never the root).
    func remove(_ path: String) throws {
        let target = absolute(path)
        if unlink(target) != 0 && errno != ENOENT {
            if kind(path) == .directory { try removeTree(path) } else { throw posixError(path, "cannot remove") }
        }
        var folder = (path as NSString).deletingLastPathComponent
        while !folder.isEmpty {
            if rmdir(absolute(folder)) != 0 { break }
            folder = (folder as NSString).deletingLastPathComponent
        }
        syncFolder((target as NSString).deletingLastPathComponent)
    }

    /// Removes a folder and everything in it.
    func removeTree(_ path: String) throws {
        do {
            try FileManager.default.removeItem(atPath: absolute(path))
        } catch {
            throw ConcordError.io(path, reason: "cannot remove the folder")
        }
    }

    /// The files below a package folder, as paths relative to it, sorted; refuses symlinks
    /// and anything that is not a regular file or folder.
    func packageFiles(_ package: String) throws -> [String] {
        var result: [String] = []
        func visit(_ relative: String) throws {
            let full = relative.isEmpty ? package : "\(package)/\(relative)"
            let names = try FileManager.default.contentsOfDirectory(atPath: absolute(full)).sorted()
            for name in names where !name.hasPrefix(".concord-tmp-") {
                let child = relative.isEmpty ? name : "\(relative)/\(name)"
                switch kind("\(package)/\(child)") {
                case .file: result.append(child)
                case .directory: try visit(child)
                case .symlink: throw ConcordError.invalidPackage(package, reason: "'\(child)' is a symbolic link; links are never followed")
                case .other, .missing: throw ConcordError.invalidPackage(package, reason: "'\(child)' is not a regular file")
                }
            }
        }
        try visit("")
        return result
    }

    func makeFolders(_ folder: String) throws {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue { return }
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw ConcordError.io(folder, reason: "cannot create the folder")
        }
    }

    private func syncFolder(_ folder: String) {
        guard GitLibrary.durable else { return }
        let descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    private func posixError(_ path: String, _ what: String) -> ConcordError {
        ConcordError.io(path, reason: "\(what): \(String(cString: strerror(errno)))")
    }
}
