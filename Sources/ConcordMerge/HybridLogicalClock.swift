public import Foundation

/// A hybrid logical clock: wall time in milliseconds plus a counter, so that a version saved
/// after another was seen always has a greater clock, whatever the devices' wall clocks say.
///
/// Written in commit trailers as `<milliseconds>.<counter>`, for example `1732280000000.2`.
public struct HybridLogicalClock: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Milliseconds since 1970 (the greatest wall time seen so far).
    public var milliseconds: Int64
    /// Events at the same millisecond, in order.
    public var counter: UInt32

    /// Creates a clock reading.
    public init(milliseconds: Int64, counter: UInt32 = 0) {
        self.milliseconds = milliseconds
        self.counter = counter
    }

    /// Parses the trailer form `<milliseconds>.<counter>`; nil when malformed.
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let ms = Int64(parts[0]), let count = UInt32(parts[1]), ms >= 0 else { return nil }
        self.init(milliseconds: ms, counter: count)
    }

    /// The zero reading, before every event.
    public static let zero = HybridLogicalClock(milliseconds: 0)

    /// The reading for a new local event that follows every event in `seen`, at wall time `now`.
    public static func next(after seen: HybridLogicalClock, now: Date) -> HybridLogicalClock {
        let wall = Int64((now.timeIntervalSince1970 * 1000).rounded(.down))
        if wall > seen.milliseconds { return HybridLogicalClock(milliseconds: wall) }
        return HybridLogicalClock(milliseconds: seen.milliseconds, counter: seen.counter &+ 1)
    }

    /// The wall time part, as a date.
    public var date: Date { Date(timeIntervalSince1970: TimeInterval(milliseconds) / 1000) }

    public var description: String { "\(milliseconds).\(counter)" }

    /// Orders readings by wall time, then by counter.
    public static func < (lhs: HybridLogicalClock, rhs: HybridLogicalClock) -> Bool {
        (lhs.milliseconds, lhs.counter) < (rhs.milliseconds, rhs.counter)
    }
}
