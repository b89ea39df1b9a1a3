internal import ConcordMerge

/// The package patterns of a `.concord/packages`, as written and parsed once: a folder whose
/// name matches one is a package, one document. ``History`` keeps them by the file's blob, so a
/// walk over many names parses nothing again.
struct PackagePatterns: Sendable, Equatable {
    /// The patterns as written, in the file's order.
    let lines: [String]
    private let globs: [GlobPattern]

    /// No pattern: every folder's files are documents.
    static let none = PackagePatterns([])

    /// Parses `lines`, one ``GlobPattern`` each.
    init(_ lines: [String]) {
        self.lines = lines
        globs = lines.map(GlobPattern.init)
    }

    /// True when no pattern is set.
    var isEmpty: Bool { lines.isEmpty }

    /// True when a folder named `name` is a package: a pattern matches its name.
    func matches(_ name: some StringProtocol) -> Bool {
        guard !globs.isEmpty else { return false }
        let path = [Array(name.unicodeScalars)]
        return globs.contains { $0.matches(components: path) }
    }

    static func == (first: PackagePatterns, second: PackagePatterns) -> Bool { first.lines == second.lines }
}
