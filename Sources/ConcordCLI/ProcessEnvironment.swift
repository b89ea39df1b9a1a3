import FoundationEssentials
internal import Glibc

/// What the process's environment sets for every command: the clock (the system clock shifted by
/// `CONCORD_CLOCK_OFFSET` seconds, to simulate a device whose clock runs ahead or behind), the
/// lock's wait (`CONCORD_LOCK_TIMEOUT`) and a new device's id (`CONCORD_DEVICE_ID`).
enum ProcessEnvironment {
    static let offset: TimeInterval = number("CONCORD_CLOCK_OFFSET", within: -3_153_600_000...3_153_600_000) ?? 0

    static let lockTimeout: Double = number("CONCORD_LOCK_TIMEOUT", within: 0...86_400) ?? 5

    @Sendable static func now() -> Date { Date().addingTimeInterval(offset) }

    /// `CONCORD_DEVICE_ID`: the id `init` and `clone` give the new device (for reproducible simulations).
    static let deviceID: String? = variable("CONCORD_DEVICE_ID").flatMap { $0.isEmpty ? nil : $0 }

    /// Why a variable of the environment that sets the clock or the lock's wait is unusable; nil when all are.
    static var environmentProblem: String? {
        for (name, range) in [("CONCORD_CLOCK_OFFSET", "seconds within 100 years"), ("CONCORD_LOCK_TIMEOUT", "seconds from 0 to 86400")] {
            if let text = variable(name), number(name, within: name == "CONCORD_CLOCK_OFFSET" ? -3_153_600_000...3_153_600_000 : 0...86_400) == nil {
                return "\(name)=\(text) is not a number of \(range)"
            }
        }
        return nil
    }

    /// The value of the variable `name`, read alone (Foundation's `ProcessInfo.processInfo.environment`
    /// copies the whole environment at each read); nil when it is not set.
    static func variable(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// The number a variable of the environment holds, when it is finite and within `range`.
    private static func number(_ name: String, within range: ClosedRange<Double>) -> Double? {
        guard let value = variable(name).flatMap(Double.init), value.isFinite, range.contains(value) else { return nil }
        return value
    }
}
