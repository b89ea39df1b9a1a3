internal import Foundation
#if DEBUG
internal import Synchronization
#endif

/// Named points inside write paths where a test can kill the process, to check that an
/// interruption at any moment leaves the container valid (SQLite's fault injection, in spirit).
///
/// Active in debug builds only; in a release build ``reach(_:)`` does nothing. Two variables
/// of the environment drive it:
/// - `CONCORD_CRASH_TRACE=FILE`: the name of every point reached is appended to FILE, a line each;
/// - `CONCORD_CRASH_AT=NAME` or `NAME#N`: the process kills itself with SIGKILL the first (or
///   the Nth) time it reaches NAME.
public enum CrashPoint {
    /// Marks that the process reached the point `name`: traced, and killed there when asked.
    public static func reach(_ name: @autoclosure () -> String) {
        #if DEBUG
        reachInDebug(name())
        #endif
    }

    #if DEBUG
    private struct Plan: Sendable {
        var trace: String?
        var target: String?
        var occurrence = 1
        var counts: [String: Int] = [:]
    }

    private static let plan: Mutex<Plan> = {
        let environment = ProcessInfo.processInfo.environment
        var plan = Plan(trace: environment["CONCORD_CRASH_TRACE"])
        if let spec = environment["CONCORD_CRASH_AT"], !spec.isEmpty {
            let parts = spec.split(separator: "#", maxSplits: 1)
            plan.target = String(parts[0])
            if parts.count == 2, let count = Int(parts[1]), count > 0 { plan.occurrence = count }
        }
        return Mutex(plan)
    }()

    private static func reachInDebug(_ name: String) {
        let (trace, kill) = plan.withLock { plan -> (String?, Bool) in
            guard plan.trace != nil || plan.target == name else { return (nil, false) }
            plan.counts[name, default: 0] += 1
            return (plan.trace, plan.target == name && plan.counts[name] == plan.occurrence)
        }
        if let trace {
            let descriptor = open(trace, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
            if descriptor >= 0 {
                let line = name + "\n"
                _ = line.withCString { write(descriptor, $0, strlen($0)) }
                close(descriptor)
            }
        }
        if kill { Foundation.kill(getpid(), SIGKILL) }
    }
    #endif
}
