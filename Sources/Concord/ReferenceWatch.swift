internal import FoundationEssentials
internal import Dispatch

/// Watches a repository's references with inotify and calls back when one may have moved: a
/// loose reference renamed into place (how libgit2 and git update `refs/heads/main`),
/// `packed-refs` rewritten, and — for a container's own repository — its configuration
/// (airplane mode), its write lock taken or released (`.git/concord/lock` opened or closed) and
/// a write starting or ending a wait for it (`.git/concord/waiting`, ``WaitingWrite``); a probe
/// through ``LockProbe`` opens nothing, so looking does not wake the watch again.
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
                case "concord":
                    return event.name == "lock" && event.has([.closeWrite, .closeNoWrite]) || event.name == "waiting" && event.has(.closeWrite)
                default: return top.contains(event.name)
                }
            }
            if relevant { onChange() }
            // A writer opens the lock file, then takes the lock (a waiting write: the waiters'
            // file, then its lock there): look once it has.
            if events.contains(where: { $0.folder == "concord" && ($0.name == "lock" || $0.name == "waiting") && $0.has(.open) }) {
                queue.asyncAfter(deadline: .now() + .milliseconds(5)) { onChange() }
            }
        }
        let renamed: Inotify.Flags = [.movedTo, .create, .closeWrite, .delete]
        for (folder, label) in [(gitDirectory, ""), ("\(gitDirectory)refs/heads", "refs/heads")] {
            switch inotify.watch(folder, label: label, mask: renamed) {
            case .watched: continue
            case .limitReached:
                throw ConcordError.io(gitDirectory, reason: "cannot watch the references: the system's limit of inotify watches is reached")
            case let .refused(reason):
                throw ConcordError.io(gitDirectory, reason: "cannot watch the references: \(reason)")
            }
        }
        if lock {
            try? FileManager.default.createDirectory(atPath: "\(gitDirectory)concord", withIntermediateDirectories: true)
            inotify.watch("\(gitDirectory)concord", label: "concord", mask: [.open, .closeWrite, .closeNoWrite])
        }
    }

    /// Stops watching.
    func cancel() { inotify.cancel() }
}
