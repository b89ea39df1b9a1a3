internal import FoundationEssentials
internal import Glibc
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
///   the Nth) time it reaches NAME;
/// - `CONCORD_CRASH_HOLD=NAME` or `NAME#N`: the process stops itself with SIGSTOP there, until
///   a SIGCONT (a race held at an exact point, however loaded the machine).
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
        var hold: String?
        var holdOccurrence = 1
        var counts: [String: Int] = [:]
    }

    private static let plan: Mutex<Plan> = {
        let environment = ProcessInfo.processInfo.environment
        var plan = Plan(trace: environment["CONCORD_CRASH_TRACE"])
        func parse(_ variable: String) -> (name: String, occurrence: Int)? {
            guard let spec = environment[variable], !spec.isEmpty else { return nil }
            let parts = spec.split(separator: "#", maxSplits: 1)
            let count = parts.count == 2 ? Int(parts[1]).flatMap { $0 > 0 ? $0 : nil } ?? 1 : 1
            return (String(parts[0]), count)
        }
        if let at = parse("CONCORD_CRASH_AT") { (plan.target, plan.occurrence) = (at.name, at.occurrence) }
        if let hold = parse("CONCORD_CRASH_HOLD") { (plan.hold, plan.holdOccurrence) = (hold.name, hold.occurrence) }
        return Mutex(plan)
    }()

    private static func reachInDebug(_ name: String) {
        let (trace, kill, hold) = plan.withLock { plan -> (String?, Bool, Bool) in
            guard plan.trace != nil || plan.target == name || plan.hold == name else { return (nil, false, false) }
            plan.counts[name, default: 0] += 1
            let count = plan.counts[name]
            return (plan.trace, plan.target == name && count == plan.occurrence, plan.hold == name && count == plan.holdOccurrence)
        }
        if let trace {
            let descriptor = open(trace, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
            if descriptor >= 0 {
                let line = name + "\n"
                _ = line.withCString { write(descriptor, $0, strlen($0)) }
                close(descriptor)
            }
        }
        if hold { Glibc.kill(getpid(), SIGSTOP) }
        if kill { Glibc.kill(getpid(), SIGKILL) }
    }
    #endif
}
