internal import Foundation
internal import Synchronization
#if canImport(Glibc)
internal import Glibc
#endif

/// Tells whether a writer holds the container's lock, through one descriptor on the lock file
/// kept open: a probe opens and closes nothing, so it never wakes the watchers of the lock file
/// (``MainObserver`` included), which would probe again.
final class LockProbe: Sendable {
    private let file: String
    /// The open lock file; nil until it exists.
    private let descriptor = Mutex<Int32?>(nil)

    init(gitDirectory: String) {
        file = "\(gitDirectory)concord/lock"
    }

    deinit {
        if let descriptor = descriptor.withLock({ $0 }) { close(descriptor) }
    }

    /// True when a writer (another process, or another container handle) holds the lock now.
    func isHeld() -> Bool {
        descriptor.withLock { descriptor in
            if descriptor == nil {
                let opened = open(file, O_RDONLY | O_CLOEXEC)
                guard opened >= 0 else { return false }
                descriptor = opened
            }
            guard let open = descriptor else { return false }
            if flock(open, LOCK_SH | LOCK_NB) == 0 {
                flock(open, LOCK_UN)
                return false
            }
            return true
        }
    }
}
