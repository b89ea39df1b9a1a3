public import FoundationEssentials

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

    /// Parses the trailer form `<milliseconds>.<counter>`; nil when malformed. A reading past
    /// ``latest`` is taken as ``latest``'s millisecond: a clock is data from another device and
    /// may be absurd, never a reason to trap.
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let ms = Int64(parts[0]), let count = UInt32(parts[1]), ms >= 0 else { return nil }
        self.init(milliseconds: min(ms, Self.latest.milliseconds), counter: count)
    }

    /// The reading of a wall-clock date, to the millisecond, held between ``zero`` and ``latest``.
    public init(date: Date) {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded(.down)
        if !(milliseconds >= 0) {
            self.init(milliseconds: 0)
        } else if milliseconds >= Double(Self.latest.milliseconds) {
            self.init(milliseconds: Self.latest.milliseconds)
        } else {
            self.init(milliseconds: Int64(milliseconds))
        }
    }

    /// The zero reading, before every event.
    public static let zero = HybridLogicalClock(milliseconds: 0)

    /// The latest reading taken: the last millisecond of the year 9999.
    public static let latest = HybridLogicalClock(milliseconds: 253_402_300_799_999, counter: .max)

    /// How far ahead of this device's wall clock a reading from elsewhere is still followed: 30 days.
    public static let maximumDrift: TimeInterval = 30 * 86_400

    /// The reading for a new local event that follows every event in `seen`, at wall time `now`.
    ///
    /// A `seen` reading more than `maximumDrift` seconds ahead of `now` is not followed (one
    /// device's absurd clock must not carry every later version far into the future); the order
    /// of versions that follow one another never depends on clocks, only concurrent ones do.
    public static func next(after seen: HybridLogicalClock, now: Date, maximumDrift: TimeInterval = maximumDrift) -> HybridLogicalClock {
        let wall = HybridLogicalClock(date: now)
        let horizon = HybridLogicalClock(date: now.addingTimeInterval(maximumDrift))
        if wall.milliseconds > seen.milliseconds || seen.milliseconds > horizon.milliseconds { return wall }
        if seen.counter < .max { return HybridLogicalClock(milliseconds: seen.milliseconds, counter: seen.counter + 1) }
        if seen.milliseconds < latest.milliseconds { return HybridLogicalClock(milliseconds: seen.milliseconds + 1) }
        return latest
    }

    /// The wall time part, as a date.
    public var date: Date { Date(timeIntervalSince1970: TimeInterval(milliseconds) / 1000) }

    public var description: String { "\(milliseconds).\(counter)" }

    /// Orders readings by wall time, then by counter.
    public static func < (lhs: HybridLogicalClock, rhs: HybridLogicalClock) -> Bool {
        (lhs.milliseconds, lhs.counter) < (rhs.milliseconds, rhs.counter)
    }
}
