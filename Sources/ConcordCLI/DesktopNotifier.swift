import FoundationEssentials
internal import Git
internal import Glibc
internal import Synchronization

/// Desktop notifications through the freedesktop notification service, by running
/// `notify-send` (libnotify) when it is installed: `concord watch --notify`.
///
/// The program is looked up once, in the absolute folders of `PATH` only, never in the
/// container (a relative `PATH` entry, or one inside the container, is passed over: nothing a
/// container holds is ever run). It runs without a shell, its arguments after `--` (a document
/// named like an option stays a document); its output is discarded and its end is not waited
/// for. A notification that cannot be shown is lost, never an error of the agent.
final class DesktopNotifier: Sendable {
    /// The program's path.
    let program: String

    /// Finds `notify-send`; nil when it is not installed.
    init?(container root: String, environment: [String: String] = ProcessInfo.processInfo.environment) {
        let inside = root.hasSuffix("/") ? root : root + "/"
        let folders = (environment["PATH"] ?? "").split(separator: ":").map(String.init)
        let found = folders.lazy.filter { $0.hasPrefix("/") && !"\($0)/".hasPrefix(inside) }.map { "\($0)/notify-send" }.first {
            var info = stat()
            return stat($0, &info) == 0 && info.st_mode & S_IFMT == S_IFREG && access($0, X_OK) == 0
        }
        guard let found else { return nil }
        program = found
    }

    /// Shows a notification: `summary` as its title, `body` below it. Notifications shown
    /// before and ended since are reaped first.
    func send(summary: String, body: String) {
        shown.withLock { shown in
            shown.removeAll { waitpid($0, nil, WNOHANG) != 0 }
            let nothing = open("/dev/null", O_RDWR | O_CLOEXEC)
            guard nothing >= 0 else { return }
            defer { close(nothing) }
            if let pid = try? ChildProcess.spawn(program, ["--app-name=Concord", "--", summary, body], standard: [nothing, nothing, nothing]) {
                shown.append(pid)
            }
        }
    }

    /// The notifications started and not yet reaped.
    private let shown = Mutex<[Int32]>([])
}
