internal import FoundationEssentials
internal import Glibc
package import GitFormat

extension ObjectStore {
    /// The size on disk of `id`'s loose file; nil when it has none.
    package func looseObjectBytes(_ id: OID) -> Int? {
        let hex = id.hex
        var info = stat()
        guard lstat("\(path)\(hex.prefix(2))/\(hex.dropFirst(2))", &info) == 0 else { return nil }
        return Int(info.st_size)
    }
}
