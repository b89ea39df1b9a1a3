internal import FoundationEssentials
internal import GitFormat
internal import GitStore

/// A repository's references read from their files, without libgit2: a loose file
/// (`refs/heads/main`), else its line in `packed-refs`. Both are read as regular files of bounded
/// size and checked whole (``References``); a symbolic reference (`HEAD`) is followed a few
/// steps at most.
enum ReferenceFiles {
    /// The most symbolic references followed in a row.
    static let longestChain = 5
    /// The most bytes of `packed-refs` read (some 300,000 references).
    static let largestPackedReferences = 32 << 20

    /// The commit `name` (`HEAD` or a name under `refs/`) points at in the repository whose git
    /// directory (ending in `/`) is `gitDirectory`, following symbolic references when
    /// `followingSymbolic`; nil when it does not exist or names a branch with no commit yet.
    /// - Throws: ``GitError`` (damage) when a file cannot be read or is malformed, the name is
    ///   not a reference's, symbolic references run in a chain too long, or one is met while not
    ///   `followingSymbolic`.
    static func resolve(_ name: String, gitDirectory: String, followingSymbolic: Bool) throws -> OID? {
        var current = name
        for _ in 0...longestChain {
            guard current == "HEAD" || (current.hasPrefix("refs/") && !current.slashSeparated().contains("..")) else {
                throw GitError(errorClass: .reference, message: "'\(current)' is not a reference's name", function: "ReferenceFiles")
            }
            let loose = gitDirectory + current
            guard let bytes = try readIfPresent(loose, largest: 4096) else {
                if current == "HEAD" { return nil }
                let packed = gitDirectory + "packed-refs"
                guard let bytes = try readIfPresent(packed, largest: largestPackedReferences) else { return nil }
                return try readingFormat(file: packed) { try References.packed(bytes, named: current) }
            }
            if let target = try readingFormat(file: loose, { try References.symbolicTarget(bytes) }) {
                guard followingSymbolic else {
                    throw GitError(errorClass: .reference, message: "\(loose) is a symbolic reference", function: "ReferenceFiles")
                }
                current = target
                continue
            }
            return try readingFormat(file: loose) { try References.loose(bytes) }
        }
        throw GitError(errorClass: .reference, message: "the symbolic reference \(name) leads through more than \(longestChain) others", function: "ReferenceFiles")
    }

    /// The file's bytes, nil when it does not exist.
    private static func readIfPresent(_ path: String, largest: Int) throws -> [UInt8]? {
        do {
            return try RegularFile.read(path, largest: largest)
        } catch let error as StoreError where error.kind == .notFound {
            return nil
        } catch let error as StoreError {
            throw GitError(error)
        }
    }
}
