internal import FoundationEssentials
internal import Synchronization
#if canImport(Glibc)
internal import Glibc
#endif

/// Tells whether a write waits for the container's lock (``WaitingWrite``) while a writer holds
/// it, through descriptors on the lock file and the waiters' file kept open: a probe opens and
/// closes nothing, so it never wakes the watchers of those files (``MainObserver`` included),
/// which would probe again.
final class LockProbe: Sendable {
    private let lockFile: String
    private let waitingFile: String
    /// The open files; nil until each exists.
    private let descriptors = Mutex<(lock: Int32?, waiting: Int32?)>((nil, nil))

    init(gitDirectory: String) {
        lockFile = gitDirectory + ContainerLayout.lock
        waitingFile = WaitingWrite.file(gitDirectory: gitDirectory)
    }

    deinit {
        let (lock, waiting) = descriptors.withLock { $0 }
        if let lock { close(lock) }
        if let waiting { close(waiting) }
    }

    /// True when a writer (another process, or another container handle) holds the lock now.
    func isHeld() -> Bool {
        descriptors.withLock { descriptors in
            guard let open = Self.opened(lockFile, &descriptors.lock) else { return false }
            if flock(open, LOCK_SH | LOCK_NB) == 0 {
                flock(open, LOCK_UN)
                return false
            }
            return true
        }
    }

    /// True when another write waits for the writer holding the lock: what makes documents
    /// `editingDisabled`. A writer at work alone (a sync) does not.
    func isWriteWaiting() -> Bool {
        let waits = descriptors.withLock { descriptors in
            Self.opened(waitingFile, &descriptors.waiting).map(WaitingWrite.anyWaiting(descriptor:)) ?? false
        }
        return waits && isHeld()
    }

    /// The descriptor kept for `file`, opened read-only on first use; nil while the file is missing.
    private static func opened(_ file: String, _ descriptor: inout Int32?) -> Int32? {
        if descriptor == nil {
            let opened = open(file, O_RDONLY | O_CLOEXEC)
            guard opened >= 0 else { return nil }
            descriptor = opened
        }
        return descriptor
    }
}
