/// The merge policies that can be named on the command line and in `.concord/policies`.
public enum MergePolicies {
    /// Every named policy, in the order help text lists them.
    public static let all: [any MergePolicy] = [
        LatestWinsPolicy(),
        KeepCurrentPolicy(),
        TextMergePolicy(),
        TextMergePolicy(favor: .current),
        TextMergePolicy(favor: .other),
        TextMergePolicy(favor: .union),
        UnionPolicy(),
        JSONMergePolicy(),
        JSONMergePolicy(settlesConflictsByLatest: true),
        PackagePolicy(),
        AutomaticPolicy(),
    ]

    /// The names of ``all``.
    public static var names: [String] { all.map(\.name) }

    /// The policy with this name; nil when there is none.
    public static func named(_ name: String) -> (any MergePolicy)? {
        all.first { $0.name == name }
    }
}
