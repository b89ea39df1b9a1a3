internal import FoundationEssentials
internal import Glibc

/// How long a device waits before trying again after losing a race to the cloud (another
/// device pushed between this one's fetch and its push): "full jitter", a random wait between
/// nothing and a bound that doubles with each race lost in a row, from `first` up to `longest`.
/// Devices that lost to one another spread their next tries instead of colliding again in
/// step, so that none starves.
struct RaceBackoff {
    var first: Duration = .milliseconds(50)
    var longest: Duration = .seconds(2)

    /// The bound of the wait after `lost` races lost in a row (1 or more).
    func bound(afterLost lost: Int) -> Duration {
        let doubled = first * Double(1 << min(max(lost - 1, 0), 20))
        return min(doubled, longest)
    }

    /// A wait after `lost` races lost in a row, drawn from `generator`.
    func delay(afterLost lost: Int, using generator: inout some RandomNumberGenerator) -> Duration {
        let bound = bound(afterLost: lost)
        let nanoseconds = bound.components.seconds * 1_000_000_000 + bound.components.attoseconds / 1_000_000_000
        return .nanoseconds(Int64.random(in: 0...max(nanoseconds, 0), using: &generator))
    }

    /// Waits after `lost` races lost in a row (the calling thread sleeps: syncs run off the
    /// caller's executor).
    func pause(afterLost lost: Int) {
        var generator = SystemRandomNumberGenerator()
        let wait = delay(afterLost: lost, using: &generator)
        let microseconds = wait.components.seconds * 1_000_000 + wait.components.attoseconds / 1_000_000_000_000
        if microseconds > 0 { usleep(useconds_t(microseconds)) }
    }
}
