public import FoundationEssentials

/// How the last sync of this device ended, as the syncing process recorded it (in
/// `.git/concord/last-sync`, rewritten whole by each sync, under the container's lock).
public struct LastSync: Sendable, Hashable, Codable {
    /// The outcome of a sync that could not use the cloud (airplane mode, an unreachable cloud).
    public static let offline = "offline"
    /// The outcome of a sync that failed for another reason.
    public static let failed = "failed"

    /// When it ended (this device's wall clock).
    public var time: Date
    /// A ``SyncReport/Outcome`` name (`upToDate`, `pushed`, `fastForwarded`, `integrated`),
    /// or ``offline``, or ``failed``.
    public var outcome: String
    /// For a sync that did not succeed: why, one line.
    public var error: String?

    /// True when the sync succeeded.
    public var succeeded: Bool { error == nil }

    /// Makes a record.
    public init(time: Date, outcome: String, error: String?) {
        self.time = time
        self.outcome = outcome
        self.error = error
    }

    static func file(gitDirectory: String) -> String { gitDirectory + ContainerLayout.lastSync }

    /// Writes the record atomically and durably, as the checkout journal is written (a new file,
    /// flushed, renamed over the old one, its folder flushed).
    func write(gitDirectory: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        var data = try encoder.encode(self)
        data.append(UInt8(ascii: "\n"))
        try WorkTree(root: String(gitDirectory.dropLast())).write(ContainerLayout.lastSync, data: data)
    }

    /// The record in `gitDirectory`; nil when no sync was recorded (or the file cannot be read).
    static func read(gitDirectory: String) -> LastSync? {
        guard let data = FileManager.default.contents(atPath: file(gitDirectory: gitDirectory)) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode(LastSync.self, from: data)
    }
}
