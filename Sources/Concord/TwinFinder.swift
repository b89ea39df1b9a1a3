internal import Git
internal import GitFormat

/// Finds, in one folder that `save --all` scans, the new names that are twins (``PathRules/foldedName(_:)``)
/// of a name the folder keeps: an entry of its tree still in the work tree (or out of the
/// save's scope), or a new name met earlier in the same scan. A name whose tree entry is gone
/// from the work tree does not count, so a rename that changes only case (`note.txt` to
/// `Note.txt`) saves as a removal and an addition.
///
/// The folded names are gathered at the first new name only: a scan that adds nothing to a
/// folder of 100,000 documents folds none of them.
struct TwinFinder {
    private let entries: [TreeEntry]
    private let names: [String]
    private let folder: String
    private let scope: SaveScope?
    private var kept: [String: String]?

    /// A finder for `folder`, whose tree holds `entries` and whose work tree holds `names`.
    init(entries: [TreeEntry], names: [String], folder: String, scope: SaveScope?) {
        self.entries = entries
        self.names = names
        self.folder = folder
        self.scope = scope
    }

    /// The name kept in the folder that the new name `name` is a twin of; nil when there is
    /// none, and then `name` is kept from now on.
    mutating func twin(ofNew name: String) -> String? {
        if kept == nil { kept = keptNames() }
        let key = PathRules.foldedName(name)
        if let existing = kept?[key] { return existing }
        // In place: a copy of the dictionary for each new name would make an import quadratic.
        kept?[key] = name
        return nil
    }

    private func keptNames() -> [String: String] {
        let present = Set(names.map(TreePath.init))
        var kept: [String: String] = [:]
        for entry in entries {
            let path = folder.isEmpty ? entry.name : "\(folder)/\(entry.name)"
            guard present.contains(TreePath(entry.name)) || scope.map({ !$0.reaches(path) }) == true else { continue }
            let key = PathRules.foldedName(entry.name)
            if kept[key] == nil { kept[key] = entry.name }
        }
        return kept
    }
}
