internal import Git
internal import GitFormat

/// Names a device on macOS or Windows could not hold side by side: two that differ only by case
/// or by Unicode normalization (``PathRules/foldedName(_:)``). Linux and git hold both, and a
/// cloud may send both (they stay two documents); a device never creates such a twin itself.
extension History {
    /// The entry along `document`'s path in `tree` that a new document at that path would be a
    /// twin of: at the first component `tree` does not hold as is, an entry of that folder with
    /// the same folded name. Nil when there is none (below a folder `tree` does not hold there
    /// is nothing to meet). Reads one folder's entries, and only for a path `tree` lacks.
    /// - Returns: the part of `document`'s path that is a twin, the existing entry's path, and
    ///   whether that entry is a folder.
    func existingTwin(of document: DocumentPath, in tree: OID?) throws -> (new: String, existing: String, isFolder: Bool)? {
        guard let tree else { return nil }
        let components = document.components
        var folder = tree
        for (depth, component) in components.enumerated() {
            let reached = components[...depth].joined(separator: "/")
            if let entry = try entry(reached, in: tree) {
                guard entry.kind == .tree else { return nil }
                folder = entry.id
                continue
            }
            let folded = PathRules.foldedName(component)
            let entries = try ConcordError.wrap("cannot read a folder") { try repository.entries(ofTree: folder) }
            guard let twin = entries.first(where: { PathRules.foldedName($0.name) == folded }) else { return nil }
            let parent = components[..<depth].joined(separator: "/")
            return (reached, parent.isEmpty ? twin.name : "\(parent)/\(twin.name)", twin.kind == .tree)
        }
        return nil
    }

    /// Refuses to create `document` when it would be a twin of an entry of `tree` (``existingTwin(of:in:)``).
    /// - Throws: ``ConcordError/invalidPath(_:reason:)`` naming the existing document or folder.
    func refuseTwin(of document: DocumentPath, in tree: OID?) throws {
        guard let twin = try existingTwin(of: document, in: tree) else { return }
        let subject = TreePath(twin.new) == TreePath(document.value) ? "it" : "'\(TerminalText.escaped(twin.new))'"
        throw ConcordError.invalidPath(
            document.value, reason: PathRules.twinProblem(twin.new, existing: twin.existing, what: twin.isFolder ? "folder" : "document", subject: subject))
    }
}
