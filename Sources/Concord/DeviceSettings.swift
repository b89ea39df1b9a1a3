internal import FoundationEssentials
internal import Git
internal import GitFormat

/// This device's own settings: the `concord.*` keys of `.git/config`, which never travel to the
/// cloud or to other devices. The one place that names them.
struct DeviceSettings {
    private enum Key {
        static let deviceName = "concord.deviceName"
        static let deviceID = "concord.deviceId"
        static let formatVersion = "concord.formatVersion"
        static let airplane = "concord.airplane"
        static let keyValueSeenCloud = "concord.kvSeenCloud"
        static let hooksPath = "core.hooksPath"
    }

    /// The configuration keys of the arrival limits (`CONCORD_MAX_OBJECT_SIZE`, `CONCORD_MAX_ARRIVAL_SIZE`).
    static let maxObjectSizeKey = "concord.maxObjectSize"
    static let maxArrivalSizeKey = "concord.maxArrivalSize"
    /// The configuration key of the network time-out (`CONCORD_NETWORK_TIMEOUT`).
    static let networkTimeoutKey = "concord.networkTimeout"

    let repository: Repository

    /// Makes the repository a device of a container, at `init` and at `clone`: its name, a new
    /// id (or `id`), the format version, and no git hooks ever run.
    /// A new device starts with its cloud's key-value store as it is — a clone takes it, and a
    /// new container's cloud holds no other container (`create` refuses one) — so that no later
    /// sync is its initial download (``KeyValueChange/Reason/initialSyncChange``).
    func configureNewDevice(name: String?, id: String?) throws {
        try ConcordError.wrap("cannot write the configuration") {
            try repository.setConfig(Key.deviceName, name ?? CloudText.defaultDeviceName())
            try repository.setConfig(Key.deviceID, id ?? UUID().uuidString.lowercased())
            try repository.setConfig(Key.formatVersion, "1")
            try repository.setConfig(Key.hooksPath, "/dev/null")
            try repository.setConfig(Key.keyValueSeenCloud, "true")
        }
    }

    /// This device; nil when the repository is not a container's device.
    var device: Device? {
        guard let id = try? repository.config(Key.deviceID), !id.isEmpty else { return nil }
        return Device(name: (try? repository.config(Key.deviceName)) ?? "device", id: id)
    }

    /// True while airplane mode is on.
    func isAirplaneModeOn() throws -> Bool {
        try ConcordError.wrap("cannot read the configuration") { try repository.config(Key.airplane) } == "true"
    }

    /// Turns airplane mode on or off.
    func setAirplaneMode(_ on: Bool) throws {
        try ConcordError.wrap("cannot write the configuration") { try repository.setConfig(Key.airplane, on ? "true" : nil) }
    }

    /// True once the key-value store has taken values from this cloud (an account change resets it).
    func keyValueStoreHasSeenCloud() throws -> Bool {
        try ConcordError.wrap("cannot read the configuration") { try repository.config(Key.keyValueSeenCloud) } != nil
    }

    /// Records whether the key-value store has taken values from the cloud.
    func setKeyValueStoreHasSeenCloud(_ seen: Bool) throws {
        try ConcordError.wrap("cannot write the configuration") { try repository.setConfig(Key.keyValueSeenCloud, seen ? "true" : nil) }
    }
}
