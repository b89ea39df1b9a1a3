internal import ConcordMerge
internal import FoundationEssentials

/// One key of the key-value store as kept in the tree at `.concord/kv/<key>`: its JSON value,
/// or a tombstone after a removal, with the clock and device of the write. Between concurrent
/// writes of a key, the greater clock (then device id) wins, on every device alike.
struct KeyValueEntry: Equatable {
    static let folder = ContainerLayout.keyValues

    var value: Data?
    var clock: HybridLogicalClock
    var deviceID: String

    static func path(of key: String) -> String { "\(folder)/\(FileName.escape(key))" }

    static func key(fromName name: String) -> String? { FileName.unescape(name) }

    init(value: Data?, clock: HybridLogicalClock, deviceID: String) {
        self.value = value
        self.clock = clock
        self.deviceID = deviceID
    }

    /// Parses an entry's bytes; nil when they are not an entry Concord wrote.
    init?(data: Data) {
        guard let object = try? JSONValue(parsing: data), case let .string(clockText)? = object["clock"],
            let clock = HybridLogicalClock(clockText), case let .string(device)? = object["device"]
        else { return nil }
        self.clock = clock
        deviceID = device
        if object["deleted"] == .bool(true) {
            value = nil
        } else if let raw = object["value"] {
            value = KeyValueStore.canonicalText(raw)
        } else {
            return nil
        }
    }

    var data: Data {
        var text = "{\"clock\":\"\(clock)\",\"device\":\(Self.quoted(deviceID)),"
        if let value {
            text += "\"value\":" + String(decoding: value, as: UTF8.self) + "}\n"
        } else {
            text += "\"deleted\":true}\n"
        }
        return Data(text.utf8)
    }

    /// True when this write wins over `other`.
    func wins(over other: KeyValueEntry) -> Bool { (clock, deviceID) > (other.clock, other.deviceID) }

    private static func quoted(_ text: String) -> String {
        String(decoding: JSONValue.string(text).text(style: .compact), as: UTF8.self)
    }
}

extension KeyValueEntry {
    /// Loses against every write: stands for an entry that is missing or unreadable.
    static let lost = KeyValueEntry(value: nil, clock: .zero, deviceID: "")
}
