/// Keeps the latest version: the greatest hybrid logical clock, then device id, then version id.
///
/// Callers that know the commit graph drop versions that another version causally follows
/// before calling it, so that "follows" always wins over "has a later clock".
public struct LatestWinsPolicy: MergePolicy {
    /// Creates the policy.
    public init() {}

    /// `latest` on the command line and in `.concord/policies`.
    public var name: String { "latest" }

    /// The content of the version last in canonical order (the base when there are none).
    public func merge(base: DocumentContent?, versions: [MergeVersion]) -> MergeOutcome {
        guard let latest = versions.max(by: { $0.rank < $1.rank }) else { return .merged(base) }
        return .merged(latest.content)
    }
}

/// Keeps the current version, removing the others.
public struct KeepCurrentPolicy: MergePolicy {
    /// Creates the policy.
    public init() {}

    /// `current` on the command line and in `.concord/policies`.
    public var name: String { "current" }

    /// The current version's content (the last version's when none is current; the base when there are none).
    public func merge(base: DocumentContent?, versions: [MergeVersion]) -> MergeOutcome {
        guard let current = versions.first(where: \.isCurrent) ?? versions.last else { return .merged(base) }
        return .merged(current.content)
    }
}
