internal import Foundation
#if canImport(Glibc)
internal import Glibc
#endif

/// Watches a repository's references with inotify and calls back when one may have moved: a
/// loose reference renamed into place (how libgit2 and git update `refs/heads/main`),
/// `packed-refs` rewritten, and — for a container's own repository — its configuration
/// (airplane mode) and its write lock taken or released (`.git/concord/lock` opened or closed;
/// a probe through ``LockProbe`` opens nothing, so looking does not wake the watch again).
///
/// Events come in batches: one callback a batch, whatever it holds.
final class ReferenceWatch: Sendable {
    private let inotify: Inotify

    /// Starts watching the repository whose git directory (ending in `/`) is `gitDirectory`;
    /// with `lock`, the container's write lock too (its folder is made when absent, as a writer would).
    /// - Throws: ``ConcordError/io(_:reason:)`` when inotify cannot watch its references.
    init(gitDirectory: String, lock: Bool, onChange: @escaping @Sendable () -> Void) throws {
        let top = ["packed-refs", "config", "HEAD"]
        let queue = DispatchQueue(label: "concord.references")
        inotify = try Inotify(queue: queue) { _, events in
            let relevant = events.contains { event in
                if event.isOverflow { return true }
                switch event.folder {
                case "refs/heads": return !event.name.hasSuffix(".lock")
                case "concord": return event.name == "lock" && event.has(IN_CLOSE_WRITE | IN_CLOSE_NOWRITE)
                default: return top.contains(event.name)
                }
            }
            if relevant { onChange() }
            // A writer opens the lock file, then takes the lock: look once it has.
            if events.contains(where: { $0.folder == "concord" && $0.name == "lock" && $0.has(IN_OPEN) }) {
                queue.asyncAfter(deadline: .now() + .milliseconds(5)) { onChange() }
            }
        }
        let renamed = UInt32(IN_MOVED_TO) | UInt32(IN_CREATE) | UInt32(IN_CLOSE_WRITE) | UInt32(IN_DELETE)
        guard inotify.watch(gitDirectory, label: "", mask: renamed),
              inotify.watch("\(gitDirectory)refs/heads", label: "refs/heads", mask: renamed)
        else {
            throw ConcordError.io(gitDirectory, reason: "cannot watch the references: \(String(cString: strerror(errno)))")
        }
        if lock {
            try? FileManager.default.createDirectory(atPath: "\(gitDirectory)concord", withIntermediateDirectories: true)
            inotify.watch("\(gitDirectory)concord", label: "concord", mask: UInt32(IN_OPEN) | UInt32(IN_CLOSE_WRITE) | UInt32(IN_CLOSE_NOWRITE))
        }
    }

    /// Stops watching.
    func cancel() { inotify.cancel() }
}
