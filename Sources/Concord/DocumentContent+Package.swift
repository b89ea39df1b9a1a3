internal import ConcordMerge
internal import FoundationEssentials

extension DocumentContent {
    /// The content of the package `name` made of `files` (paths inside it, with their bytes).
    ///
    /// A package's files are held by `String` path, which compares by canonical equivalence: two
    /// files whose names differ by Unicode normalization alone (`café` with `é`, and with `e` and
    /// a combining accent), two files to git and Linux, would be one, and the other lost by
    /// whatever is written from this content (a merge, a resolution, `adopt`).
    /// - Throws: ``ConcordError/invalidPackage(_:reason:)`` naming such a pair.
    static func package(named name: String, files: [(path: String, data: Data)]) throws -> DocumentContent {
        var byPath: [String: Data] = [:]
        byPath.reserveCapacity(files.count)
        for file in files {
            if let index = byPath.index(forKey: file.path) {
                let other = byPath[index].key
                throw ConcordError.invalidPackage(
                    name,
                    reason: "'\(TerminalText.escaped(other))' and '\(TerminalText.escaped(file.path))' are two files whose names differ "
                        + "only by Unicode normalization, which Concord cannot tell apart in a package; rename one of them")
            }
            byPath[file.path] = file.data
        }
        return .package(byPath)
    }
}
