internal import GitStore

/// Which merge policy each document uses, from the text of a container's `.concord/policies`.
///
/// Each line is `PATTERN POLICY-NAME [id=KEY[,KEY…]] [auto]`, fields separated by spaces or
/// tabs; blank lines and lines starting with `#` are skipped. The second field is always the
/// policy name. A `json` or `json-latest` rule may then give `id=KEY[,KEY…]`: the member names
/// that identify the objects of arrays, tried before `id`, `_id` and `uuid`. A rule whose last
/// field, after the policy name, is the word `auto` resolves on its own
/// (``Rule/resolvesAutomatically``): sync resolves that pattern's conflicts at once with the
/// policy, and only a merge that needs a person is left for one. The patterns are
/// ``GlobPattern``s, like `.gitattributes`; the first rule whose pattern matches the document's
/// path wins. Without a matching rule, the defaults apply: a package merges component by
/// component (`package`), `*.json` merges structurally (`json`), other UTF-8 text line by line
/// (`text`), anything else keeps the latest version (`latest`).
///
/// ```
/// # .concord/policies
/// *.log                     union
/// settings/*.json           json-latest
/// people.json               json id=email
/// *.sketch                  latest
/// .obsidian/workspace.json  latest auto
/// ```
///
/// The policy name `auto` (in the second field) means "the defaults": `notes/* auto` selects the
/// defaults and leaves conflicts for a person, as it always did; `notes/* auto auto` selects the
/// defaults and resolves on its own.
public struct PolicyRules: Sendable {
    /// One line of the file.
    public struct Rule: Sendable, Hashable {
        /// The pattern paths are matched against.
        public var pattern: GlobPattern
        /// The policy it selects (a name from ``MergePolicies/names``, `auto`, or one this
        /// process does not know: ``isKnown``).
        public var policyName: String
        /// Its line number in the file, from 1.
        public var line: Int
        /// For a JSON policy, the member names that identify array elements (`id=` on the line).
        public var idKeys: [String]
        /// True when the line ends with `auto`: sync and the sync agent resolve this pattern's
        /// conflicts at once with the policy; a merge that needs a person is left for one.
        public var resolvesAutomatically: Bool

        /// Creates a rule.
        public init(pattern: GlobPattern, policyName: String, line: Int, idKeys: [String] = [], resolvesAutomatically: Bool = false) {
            self.pattern = pattern
            self.policyName = policyName
            self.line = line
            self.idKeys = idKeys
            self.resolvesAutomatically = resolvesAutomatically
        }

        /// The rule as a line of `.concord/policies` (its pattern as written).
        public var text: String {
            var fields = [pattern.description, policyName]
            if !idKeys.isEmpty { fields.append("id=" + idKeys.joined(separator: ",")) }
            if resolvesAutomatically { fields.append(PolicyRules.automaticName) }
            return fields.joined(separator: " ")
        }

        /// The policy the rule selects; nil for `auto`.
        func policy(rules: PolicyRules, path: String) -> (any MergePolicy)? {
            switch policyName {
            case PolicyRules.automaticName: nil
            case PackagePolicy.policyName: PackagePolicy(rules: rules, path: path)
            case "json", "json-latest":
                JSONMergePolicy(settlesConflictsByLatest: policyName == "json-latest", idKeys: idKeys)
            default: MergePolicies.named(policyName) ?? UnregisteredPolicy(name: policyName)
            }
        }

        /// True when this process knows the policy the rule names (built in, registered, or
        /// `auto`); the documents a rule naming another one matches are left for a person.
        public var isKnown: Bool {
            policyName == PolicyRules.automaticName || MergePolicies.named(policyName) != nil
        }
    }

    /// A line of `.concord/policies` that cannot be used.
    public struct SyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The line number, from 1.
        public var line: Int
        /// The line's text.
        public var text: String
        /// What is wrong with it.
        public var message: String

        /// The line number, what is wrong, and the line quoted (escaped, and cut when long).
        public var description: String { ".concord/policies line \(line): \(message): \(QuotedText.quoted(text, limit: 120))" }
    }

    /// The rules, in the order they are tried.
    public var rules: [Rule]

    /// The word that selects the defaults as a policy name, and marks a rule that resolves on
    /// its own as the last field of its line.
    public static let automaticName = "auto"

    /// Rules that only apply the defaults.
    public init() {
        rules = []
    }

    /// Parses the text of a `.concord/policies` file. A policy name this process does not know
    /// is no error here (another program may have registered it: ``MergePolicies/register(_:)``):
    /// its rule leaves the documents it matches for a person (``Rule/isKnown``).
    /// - Throws: ``SyntaxError`` for a line that is not `PATTERN POLICY-NAME [id=KEY[,KEY…]] [auto]`.
    public init(text: String) throws(SyntaxError) {
        rules = []
        for (index, line) in text.lines().enumerated() {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard let first = fields.first, !first.hasPrefix("#") else { continue }
            let lineText = String(line)
            func failure(_ message: String) -> SyntaxError {
                SyntaxError(line: index + 1, text: lineText, message: message)
            }
            guard fields.count >= 2 else { throw failure("a pattern needs a policy name after it") }
            let name = String(fields[1])
            var options = fields.dropFirst(2)
            let automatic = options.last == Substring(PolicyRules.automaticName)
            if automatic { options = options.dropLast() }
            var idKeys: [String] = []
            for option in options {
                if option == Substring(PolicyRules.automaticName) {
                    throw failure("'auto' goes once, last: PATTERN POLICY-NAME [id=KEY[,KEY…]] auto")
                }
                guard option.hasPrefix("id="), name == "json" || name == "json-latest" else {
                    throw failure(
                        name.hasPrefix("json")
                            ? "unknown option \(QuotedText.quoted(option)) (a JSON policy takes id=KEY[,KEY…], then auto to resolve on its own)"
                            : "expected PATTERN POLICY-NAME [auto], found \(QuotedText.quoted(option)) after the policy name")
                }
                let keys = option.dropFirst(3).split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                guard !keys.contains(where: \.isEmpty) else { throw failure("id= needs member names separated by commas") }
                idKeys += keys
            }
            rules.append(
                Rule(pattern: GlobPattern(String(first)), policyName: name, line: index + 1, idKeys: idKeys, resolvesAutomatically: automatic))
        }
    }

    /// The rule that selects the policy for `path`; nil when the defaults apply.
    public func rule(for path: String) -> Rule? {
        rules.first { $0.pattern.matches(path) }
    }

    /// The policy for the document at `path` (relative to the container root) whose versions are
    /// `versions`: the first matching rule's, else the default for the versions' content.
    public func policy(for path: String, versions: [MergeVersion]) -> any MergePolicy {
        if let policy = rule(for: path)?.policy(rules: self, path: path) { return policy }
        return defaultPolicy(for: path, contents: versions.map(\.content))
    }

    /// The default policy for a document at `path` with these contents (nil: deleted).
    public func defaultPolicy(for path: String, contents: [DocumentContent?]) -> any MergePolicy {
        if contents.contains(where: { if case .package? = $0 { true } else { false } }) {
            return PackagePolicy(rules: self, path: path)
        }
        if GlobPattern("*.json").matches(path) { return JSONMergePolicy() }
        let allText = contents.allSatisfy { content in content?.fileData.map(TextMergePolicy.isText) ?? true }
        return allText ? TextMergePolicy() : LatestWinsPolicy()
    }
}
