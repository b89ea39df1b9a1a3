public import FoundationEssentials

/// Who made a commit and when: a value snapshot of a git signature.
public struct Signature: Sendable, Equatable {
    /// The name (Concord writes the device name here).
    public var name: String
    /// The e-mail field (Concord writes `<device id>@concord.invalid`).
    public var email: String
    /// The moment, to the second as git stores it.
    public var time: Date
    /// The offset from UTC in minutes.
    public var timeZoneOffsetMinutes: Int

    /// Creates a signature.
    public init(name: String, email: String, time: Date, timeZoneOffsetMinutes: Int = 0) {
        self.name = name
        self.email = email
        self.time = time
        self.timeZoneOffsetMinutes = timeZoneOffsetMinutes
    }
}
