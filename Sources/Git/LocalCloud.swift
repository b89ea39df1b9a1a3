internal import FoundationEssentials
internal import Glibc
public import GitFormat
internal import GitStore

/// A cloud on this machine: a bare repository (or a folder holding one as `.git`), opened as
/// someone else's (``Repository/openCloud(at:largestObject:)``).
///
/// A fetch and a push copy exactly the objects of the new commits' changed folders through the
/// two repositories' stores (``Repository/copyObjects(to:from:hiding:trusted:)``), every object
/// fetched hashed to its id; nothing of the cloud is shared with the device (no hard link, no
/// alternates). The cloud's references are read as regular files of bounded size, checked
/// whole, and moved with git's lock protocol (``moveReference(_:to:expected:)``), so that git and
/// other Concord devices take turns with them.
public final class LocalCloud: Cloud {
    /// The cloud's repository, opened as someone else's.
    public let repository: Repository
    /// Always nil: a cloud on this machine asks for no credential.
    public var acceptedCredential: Credential? { nil }

    /// The cloud at `path`, objects over `largestObject` bytes refused unread.
    /// - Throws: ``GitError`` (``GitError/isNoRepository``) when `path` holds no repository.
    public init(at path: String, largestObject: Int) throws {
        repository = try Repository.openCloud(at: path, largestObject: largestObject)
    }

    /// The cloud's git folder, with a trailing slash.
    public var gitDirectory: String { repository.gitDirectory }

    /// Copies the objects of `branch`'s commits that `device` lacks, unless it has the tip.
    public func fetch(_ branch: String, into device: Repository, known: [OID], progress: (@Sendable (TransferProgress) -> Void)?) throws -> OID? {
        guard let tip = try reference(branch) else { return nil }
        if !device.contains(tip) { try repository.copyObjects(to: device, from: [tip], hiding: known) }
        return tip
    }

    /// The commit `branch` names, read from the cloud's files (``reference(_:)``).
    public func peek(_ branch: String, from device: Repository) throws -> OID? {
        try reference(branch)
    }

    /// Copies the objects of `target`'s commits the cloud lacks (hiding `expected` and what
    /// the branch names now), then moves the branch by compare-and-swap from `expected`.
    public func push(_ target: OID, to branch: String, expected: OID?, from device: Repository) throws -> PushOutcome {
        let known = [expected, try reference(branch)].compactMap { $0 }
        try device.copyObjects(to: repository, from: [target], hiding: known, trusted: true)
        return try moveReference(branch, to: target, expected: expected)
    }

    /// The commit the reference `name` (`refs/heads/main`) points at: its loose file, else its
    /// line in `packed-refs`; nil when neither names it. Both are read as regular files of
    /// bounded size and checked whole.
    /// - Throws: ``GitError`` (damage) when either cannot be read or is malformed, or the
    ///   reference is symbolic.
    public func reference(_ name: String) throws -> OID? {
        try Self.reference(name, gitDirectory: gitDirectory)
    }

    /// ``reference(_:)`` of the repository whose git directory (ending in `/`) is `gitDirectory`,
    /// read without opening it: the device's own `main` read while its handle is busy.
    public static func reference(_ name: String, gitDirectory: String) throws -> OID? {
        try ReferenceFiles.resolve(name, gitDirectory: gitDirectory, followingSymbolic: false)
    }

    /// Moves the reference `name` to `target`, if it still points at `expected` (nil: if it
    /// does not exist): git's own protocol. `name.lock` is created exclusively, the reference
    /// read and compared, the new value written and synced, then renamed over the reference.
    /// - Returns: ``PushOutcome/cloudMoved`` when the reference points elsewhere (it is left
    ///   as it is), else ``PushOutcome/pushed``.
    /// - Throws: ``GitError``: ``GitError/Code/locked`` when another writer holds its lock, or the file
    ///   system's error.
    public func moveReference(_ name: String, to target: OID, expected: OID?) throws -> PushOutcome {
        let file = gitDirectory + name, lock = file + ".lock"
        try FileManager.default.createDirectory(atPath: PathText.folder(of: file), withIntermediateDirectories: true)
        let descriptor = Glibc.open(lock, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard descriptor >= 0 else {
            let locked = errno == EEXIST
            throw GitError(
                code: locked ? .locked : .generic, errorClass: .reference,
                message: locked ? "\(lock) exists: another writer is moving \(name)" : "cannot create \(lock): \(String(cString: strerror(errno)))",
                function: "moveCloudReference")
        }
        var renamed = false
        defer { if !renamed { unlink(lock) } }
        CrashPoint.reach(repository.crashPointName(name, "before"))
        let current: OID?
        do {
            current = try reference(name)
        } catch {
            close(descriptor)
            throw error
        }
        guard current == expected else {
            close(descriptor)
            return .cloudMoved
        }
        let line = Array("\(target.hex)\n".utf8)
        let written = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = !GitLibrary.durable || fsync(descriptor) == 0
        close(descriptor)
        guard written == line.count, synced, rename(lock, file) == 0 else {
            throw GitError(errorClass: .os, message: "cannot write \(file): \(String(cString: strerror(errno)))", function: "moveCloudReference")
        }
        renamed = true
        if GitLibrary.durable {
            let folder = Glibc.open(PathText.folder(of: file), O_RDONLY | O_CLOEXEC | O_DIRECTORY)
            if folder >= 0 {
                fsync(folder)
                close(folder)
            }
        }
        CrashPoint.reach(repository.crashPointName(name, "after"))
        return .pushed
    }

    /// Removes the lock file a push killed while moving `reference` left behind
    /// (``Repository/removeStaleLock(ofReference:)``). Call only while holding the cloud's turn.
    public func removeStaleLock(ofReference reference: String) {
        repository.removeStaleLock(ofReference: reference)
    }
}
