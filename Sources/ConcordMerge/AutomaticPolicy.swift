/// Picks the default policy from the content alone, for callers that know no path: packages
/// merge as packages, versions that are all JSON objects or arrays as JSON, other UTF-8 text
/// line by line, anything else by latest-wins.
public struct AutomaticPolicy: MergePolicy {
    /// Creates the policy.
    public init() {}

    /// `auto`, the name a `.concord/policies` rule gives for the defaults.
    public var name: String { PolicyRules.automaticName }

    /// Merges with the policy ``chosen(base:versions:)`` picks for these inputs.
    public func merge(base: DocumentContent?, versions: [MergeVersion]) -> MergeOutcome {
        decide(base: base, versions: versions).outcome
    }

    /// The decision of the policy ``chosen(base:versions:)`` picks, its note included.
    public func decide(base: DocumentContent?, versions: [MergeVersion]) -> MergeDecision {
        chosen(base: base, versions: versions).decide(base: base, versions: versions)
    }

    /// The policy used for these inputs.
    public func chosen(base: DocumentContent?, versions: [MergeVersion]) -> any MergePolicy {
        let contents = [base] + versions.map(\.content)
        let defaults = PolicyRules().defaultPolicy(for: "", contents: contents)
        guard defaults is TextMergePolicy else { return defaults }
        let allJSON = contents.allSatisfy { content in
            guard let data = content?.fileData else { return true }
            guard let value = try? JSONValue(parsing: data) else { return false }
            switch value {
            case .object, .array: return true
            default: return false
            }
        }
        return allJSON ? JSONMergePolicy() : defaults
    }
}
