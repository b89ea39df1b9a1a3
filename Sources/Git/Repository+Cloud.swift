internal import CGit2
internal import Foundation
internal import Glibc
public import GitFormat
internal import GitStore

extension Repository {
    /// Opens the repository at `path` (a bare repository, or a folder holding one as `.git`)
    /// as a cloud: someone else's, read without trusting it. libgit2 knows it only through its
    /// objects, served by Concord's object store as a device's are (libgit2 never opens its
    /// configuration, alternates or hooks), objects over `largestObject` bytes are refused
    /// unread, and its references are read and moved only with ``cloudReference(_:)`` and
    /// ``moveCloudReference(_:to:expected:)``.
    /// - Throws: ``GitError`` (``GitError/isNoRepository``) when `path` holds no repository.
    public static func openCloud(at path: String, largestObject: Int) throws -> Repository {
        Libgit2.ensure()
        guard let gitDirectory = cloudGitDirectory(path) else {
            throw GitError(
                code: GIT_ENOTFOUND.rawValue, errorClass: Int32(GIT_ERROR_REPOSITORY.rawValue),
                message: "\(path) holds no repository", function: "openCloud")
        }
        var handle: OpaquePointer?
        try check("git_repository_new", git_repository_new(&handle))
        guard let handle else { throw GitError(message: "no repository for \(path)", function: "git_repository_new") }
        return try wrapping(handle, gitDirectory: gitDirectory, largestObject: largestObject)
    }

    /// The git folder of the repository at `path`, with a trailing slash: `path` itself when it
    /// is a bare repository, `path/.git` when that is one; nil otherwise. Links are not followed
    /// below `path`.
    private static func cloudGitDirectory(_ path: String) -> String? {
        let base = path.hasSuffix("/") ? path : path + "/"
        for candidate in [base, base + ".git/"] {
            var objects = stat(), head = stat()
            if lstat(candidate + "objects", &objects) == 0, objects.st_mode & S_IFMT == S_IFDIR,
                lstat(candidate + "HEAD", &head) == 0, head.st_mode & S_IFMT == S_IFREG
            {
                return candidate
            }
        }
        return nil
    }

    /// The commit the reference `name` (`refs/heads/main`) of a cloud opened with
    /// ``openCloud(at:largestObject:)`` points at: its loose file, else its line in
    /// `packed-refs`; nil when neither names it. Both are read as regular files of bounded size
    /// and checked whole.
    /// - Throws: ``GitError`` (damage) when either cannot be read or is malformed, or the
    ///   reference is symbolic.
    public func cloudReference(_ name: String) throws -> OID? {
        let loose = gitDirectory + name
        if let bytes = try Self.readIfPresent(loose, largest: 4096) {
            guard let id = try readingFormat(file: loose, { try References.loose(bytes) }) else {
                throw GitError(errorClass: Int32(GIT_ERROR_REFERENCE.rawValue), message: "\(loose) is a symbolic reference", function: "cloudReference")
            }
            return id
        }
        let packed = gitDirectory + "packed-refs"
        guard let bytes = try Self.readIfPresent(packed, largest: Self.largestPackedReferences) else { return nil }
        return try readingFormat(file: packed) { try References.packed(bytes, named: name) }
    }

    /// The most bytes of `packed-refs` read (some 300,000 references).
    static let largestPackedReferences = 32 << 20

    /// Moves the reference `name` of a cloud to `target`, if it still points at `expected` (nil:
    /// if it does not exist): git's own protocol, so that git and other Concord devices take
    /// turns with it. `name.lock` is created exclusively, the reference read and compared, the
    /// new value written and synced, then renamed over the reference.
    /// - Throws: ``GitError``: ``GitError/isNotFastForward`` when the reference moved,
    ///   `GIT_ELOCKED` when another writer holds its lock, or the file system's error.
    public func moveCloudReference(_ name: String, to target: OID, expected: OID?) throws {
        let file = gitDirectory + name, lock = file + ".lock"
        try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let descriptor = Glibc.open(lock, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard descriptor >= 0 else {
            let locked = errno == EEXIST
            throw GitError(
                code: locked ? GIT_ELOCKED.rawValue : GIT_ERROR.rawValue, errorClass: Int32(GIT_ERROR_REFERENCE.rawValue),
                message: locked ? "\(lock) exists: another writer is moving \(name)" : "cannot create \(lock): \(String(cString: strerror(errno)))",
                function: "moveCloudReference")
        }
        var renamed = false
        defer { if !renamed { unlink(lock) } }
        CrashPoint.reach(crashPointName(name, "before"))
        let current: OID?
        do {
            current = try cloudReference(name)
        } catch {
            close(descriptor)
            throw error
        }
        guard current == expected else {
            close(descriptor)
            throw GitError(
                code: GIT_EMODIFIED.rawValue, errorClass: Int32(GIT_ERROR_REFERENCE.rawValue),
                message: "the cloud's \(name) moved since it was fetched", function: "moveCloudReference")
        }
        let line = Array("\(target.hex)\n".utf8)
        let written = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = !GitLibrary.durable || fsync(descriptor) == 0
        close(descriptor)
        guard written == line.count, synced, rename(lock, file) == 0 else {
            throw GitError(errorClass: Int32(GIT_ERROR_OS.rawValue), message: "cannot write \(file): \(String(cString: strerror(errno)))", function: "moveCloudReference")
        }
        renamed = true
        if GitLibrary.durable {
            let folder = Glibc.open((file as NSString).deletingLastPathComponent, O_RDONLY | O_CLOEXEC | O_DIRECTORY)
            if folder >= 0 {
                fsync(folder)
                close(folder)
            }
        }
        CrashPoint.reach(crashPointName(name, "after"))
    }

    /// The bytes of the regular file `path`; nil when there is none.
    private static func readIfPresent(_ path: String, largest: Int) throws -> [UInt8]? {
        do {
            return try RegularFile.read(path, largest: largest)
        } catch let error as StoreError where error.kind == .notFound {
            return nil
        } catch let error as StoreError {
            throw GitError(error)
        }
    }
}
