/// The steps every policy shares before doing its own work: canonical order, and the
/// three-way shortcuts that need no merging at all.
enum MergeInputs {
    /// The versions in ``MergeVersion/canonicalOrder(_:_:)``, whatever order they came in.
    static func canonical(_ versions: [MergeVersion]) -> [MergeVersion] {
        versions.sorted(by: MergeVersion.canonicalOrder)
    }

    /// The outcome when at most one distinct change was made: every version equal to the base
    /// gives the base, every changed version equal to one content gives that content.
    /// Nil when two or more versions changed the document differently.
    static func trivialOutcome(base: DocumentContent?, versions: [MergeVersion]) -> MergeOutcome? {
        var changed: DocumentContent??
        for version in versions where version.content != base {
            switch changed {
            case nil: changed = .some(version.content)
            case let .some(content) where content == version.content: continue
            case .some: return nil
            }
        }
        if let changed { return .merged(changed) }
        return .merged(base)
    }

    /// The version a merge shapes its output after: the current one, else the latest.
    static func current(of versions: [MergeVersion]) -> MergeVersion? {
        versions.first(where: \.isCurrent) ?? versions.last
    }
}
