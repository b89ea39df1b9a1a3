internal import FoundationEssentials
#if canImport(Glibc)
internal import Glibc
#endif

/// The container's write lock (the NSFileCoordinator role): one writing process at a time.
///
/// An advisory `flock` on `.git/concord/lock`: the kernel releases it when the process ends,
/// even by SIGKILL, so a crash never leaves the container locked. Readers never take it.
final class ContainerLock {
    private let descriptor: Int32

    /// Takes the lock, waiting up to `timeout` seconds; while it waits, the wait is visible to
    /// readers (``WaitingWrite``).
    /// - Throws: ``ConcordError/busy(_:)`` when another process still holds it.
    convenience init(gitDirectory: String, root: String, timeout: Double) throws {
        let folder = "\(gitDirectory)concord"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try self.init(file: "\(folder)/lock", holder: root, timeout: timeout, waitingIn: gitDirectory)
    }

    /// Takes an exclusive lock on `file`, waiting up to `timeout` seconds; with `waitingIn` (a
    /// git directory), a wait is registered there as a ``WaitingWrite`` until it ends.
    /// - Throws: ``ConcordError/busy(_:)`` naming `holder` when another process still holds it.
    init(file: String, holder: String, timeout: Double, waitingIn gitDirectory: String? = nil) throws {
        let root = holder
        descriptor = open(file, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw ConcordError.io(file, reason: "cannot open the lock file: \(String(cString: strerror(errno))) (is the container read-only?)")
        }
        let deadline = Date().addingTimeInterval(timeout)
        var waiting: WaitingWrite?
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            if Date() >= deadline {
                close(descriptor)
                throw ConcordError.busy(root)
            }
            if waiting == nil, let gitDirectory { waiting = WaitingWrite(gitDirectory: gitDirectory) }
            usleep(20_000)
        }
        withExtendedLifetime(waiting) {}
    }

    /// Replaces the lock file's content with `text` (the sync agent writes its process id there).
    func record(_ text: String) {
        let bytes = Array(text.utf8)
        guard ftruncate(descriptor, 0) == 0 else { return }
        _ = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    /// True when another process holds the container's lock now (checked without waiting or keeping it).
    static func isHeld(gitDirectory: String) -> Bool {
        isHeld(file: gitDirectory + ContainerLayout.lock)
    }

    /// True when a process holds an exclusive lock on `file` now. The question takes a shared
    /// lock for a moment: two readers asking at once never see each other as the holder.
    static func isHeld(file: String) -> Bool {
        let descriptor = open(file, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        if flock(descriptor, LOCK_SH | LOCK_NB) == 0 {
            flock(descriptor, LOCK_UN)
            return false
        }
        return true
    }
}
