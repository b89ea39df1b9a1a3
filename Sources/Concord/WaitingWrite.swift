internal import FoundationEssentials
#if canImport(Glibc)
internal import Glibc
#endif

/// A write waiting for the container's lock, made visible to readers: while one exists and a
/// writer holds the lock, documents are `editingDisabled` (``DocumentState``).
///
/// Each waiter holds a shared open-file-description lock (`fcntl` `F_OFD_SETLK`, a read lock) on
/// `.git/concord/waiting` for as long as it waits. A reader asks with `F_OFD_GETLK` whether any
/// such lock is held: a question that takes nothing, so it never delays a waiter or another
/// reader. The kernel drops a waiter's lock when its descriptor closes, the process killed
/// included, so a waiter that died leaves nothing behind. These locks are independent of the
/// `flock` of ``ContainerLock``.
final class WaitingWrite: Sendable {
    /// Linux's `F_OFD_GETLK` and `F_OFD_SETLK` (fcntl.h declares them for `_GNU_SOURCE` only).
    private static let getLock: Int32 = 36
    private static let setLock: Int32 = 37

    private let descriptor: Int32

    /// The file waiters lock, in the git directory `gitDirectory` (ending in `/`).
    static func file(gitDirectory: String) -> String { gitDirectory + ContainerLayout.waiting }

    /// Registers a waiting write until this object goes; nil when the file cannot be opened or
    /// locked (the write still waits, unseen).
    init?(gitDirectory: String) {
        let descriptor = open(Self.file(gitDirectory: gitDirectory), O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return nil }
        var request = Self.request(F_RDLCK)
        guard fcntl(descriptor, Self.setLock, &request) == 0 else {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// True when a write waits, asked through `descriptor`, open on the waiters' file.
    static func anyWaiting(descriptor: Int32) -> Bool {
        var request = Self.request(F_WRLCK)
        guard fcntl(descriptor, getLock, &request) == 0 else { return false }
        return request.l_type != Int16(F_UNLCK)
    }

    /// True when a write of the container whose git directory is `gitDirectory` waits.
    static func anyWaiting(gitDirectory: String) -> Bool {
        let descriptor = open(file(gitDirectory: gitDirectory), O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return anyWaiting(descriptor: descriptor)
    }

    /// True when a writer holds the container's lock and another write waits for it: the
    /// documents' `editingDisabled`. The waiters' file is only opened while the lock is held.
    static func isWriteWaiting(gitDirectory: String) -> Bool {
        ContainerLock.isHeld(gitDirectory: gitDirectory) && anyWaiting(gitDirectory: gitDirectory)
    }

    private static func request(_ type: Int32) -> flock {
        var request = flock()
        request.l_type = Int16(type)
        request.l_whence = Int16(SEEK_SET)
        request.l_start = 0
        request.l_len = 0
        return request
    }
}
