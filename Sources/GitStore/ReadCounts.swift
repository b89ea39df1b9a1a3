/// How many reads of an object store each path served: the one decision ``ObjectStore/read(_:)``
/// makes per read, made visible.
package struct ReadCounts: Equatable, CustomStringConvertible {
    /// Served from the pack being written.
    package var session = 0
    /// Served from the folders read recently.
    package var recent = 0
    /// Read from a pack.
    package var packed = 0
    /// Read from a loose file.
    package var loose = 0

    /// No reads yet.
    package init() {}

    package var description: String { "session \(session), recent \(recent), packed \(packed), loose \(loose)" }
}
