internal import Synchronization

/// The merge policies that can be named on the command line and in `.concord/policies`: the
/// built-in ones, and those the program registered (``register(_:)``).
public enum MergePolicies {
    /// The policies every program knows, in the order help text lists them.
    public static let builtIn: [any MergePolicy] = [
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

    private static let registered = Mutex<[String: any MergePolicy]>([:])

    /// A policy that cannot be registered under its name.
    public struct RegistrationError: Error, Sendable, CustomStringConvertible {
        /// The name refused.
        public var name: String
        /// Why.
        public var reason: String

        public var description: String { "cannot register the merge policy \"\(name)\": \(reason)" }
    }

    /// Makes `policy` known under its ``MergePolicy/name`` in this process: `.concord/policies`
    /// may name it, and every resolver that reads the rules uses it (``PolicyRules``, so
    /// `resolve(using: .mergeBySelection)`, the rules that resolve on their own, the sync agent).
    /// Registering a name again replaces the policy. Register before the first sync or resolve
    /// that needs it; a rule naming a policy this process never registered leaves the documents
    /// it matches for a person (the rest of the rules apply).
    /// - Throws: ``RegistrationError`` for a built-in name, `auto`, or a name that is empty or
    ///   holds a space, a tab or a line break (it could not be written in a rule).
    public static func register(_ policy: any MergePolicy) throws(RegistrationError) {
        let name = policy.name
        if name.isEmpty || name.contains(where: { $0 == " " || $0 == "\t" || $0.isNewline }) || name.hasPrefix("#") {
            throw RegistrationError(name: name, reason: "a name is one word that does not start with '#'")
        }
        if name == PolicyRules.automaticName || builtIn.contains(where: { $0.name == name }) {
            throw RegistrationError(name: name, reason: "it is a built-in policy's name")
        }
        registered.withLock { $0[name] = policy }
    }

    /// Every named policy: the built-in ones, then the registered ones by name.
    public static var all: [any MergePolicy] {
        builtIn + registered.withLock { $0.sorted { $0.key < $1.key }.map(\.value) }
    }

    /// The names of ``all``.
    public static var names: [String] { all.map(\.name) }

    /// The policy with this name; nil when there is none.
    public static func named(_ name: String) -> (any MergePolicy)? {
        builtIn.first { $0.name == name } ?? registered.withLock { $0[name] }
    }
}
