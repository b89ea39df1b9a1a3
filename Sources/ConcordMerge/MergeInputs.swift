internal import FoundationEssentials

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

    /// The bytes of every version that has content (deletions are skipped), or, when one is a
    /// package or not UTF-8 text, the "needs a person" outcome that says which and whose.
    static func texts(of versions: [MergeVersion]) -> (texts: [(version: MergeVersion, text: Data)], refusal: MergeOutcome?) {
        var texts: [(version: MergeVersion, text: Data)] = []
        for version in versions {
            switch version.content {
            case nil:
                continue
            case .package?:
                return ([], .needsPerson(reason: "\(version.deviceName)'s version is a package, not text", markedUp: nil))
            case let .file(data)?:
                guard TextMergePolicy.isText(data) else {
                    return ([], .needsPerson(reason: "\(version.deviceName)'s version is binary, not UTF-8 text", markedUp: nil))
                }
                texts.append((version, data))
            }
        }
        return (texts, nil)
    }
}
