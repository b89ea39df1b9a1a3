/// The part of the work tree a scoped `save --all` compares with `main`: the paths a watcher
/// named (files, or folders with everything below them), reached through their parent folders.
struct SaveScope: Sendable {
    /// The named paths, relative to the root.
    let paths: Set<String>
    /// Every folder above a named path: scanned only for the entries leading to one.
    private let ancestors: Set<String>

    init(_ paths: Set<String>) {
        self.paths = paths
        var ancestors = Set<String>()
        for path in paths {
            var folder = Substring(path)
            while let slash = folder.lastIndex(of: "/") {
                folder = folder[..<slash]
                guard ancestors.insert(String(folder)).inserted else { break }
            }
        }
        self.ancestors = ancestors
    }

    /// True when the entry at `path` is named or leads to a named path.
    func reaches(_ path: String) -> Bool { paths.contains(path) || ancestors.contains(path) }
}
