/// A device: one clone of a container, with a name people read and a stable id.
///
/// Both live in the clone's own git configuration (`concord.deviceName`, `concord.deviceId`),
/// never in the tree, so every clone is a distinct device.
public struct Device: Sendable, Hashable, CustomStringConvertible {
    /// The name people read (`iPhone`, `laptop`).
    public var name: String
    /// A stable unique id, made once when the clone is made.
    public var id: String

    /// Creates a device value.
    public init(name: String, id: String) {
        self.name = name
        self.id = id
    }

    public var description: String { "\(name) (\(id.prefix(8)))" }
}
