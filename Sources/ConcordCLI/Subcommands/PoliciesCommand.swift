import Concord
import ConcordMerge
import FoundationEssentials

struct PoliciesCommand: Subcommand {
    static let description = CommandDescription(
        name: "policies",
        abstract: "Show or set the merge-policy rules of .concord/policies.",
        discussion: """
            One rule a line, 'PATTERN POLICY-NAME [id=KEY,...] [auto]', first match wins, like .gitattributes \
            (for example '*.log union' or 'settings/*.json json-latest'). A rule ending with 'auto' resolves on \
            its own: sync and the agent resolve that pattern's conflicts at once with the policy (for example \
            '.obsidian/workspace.json latest auto'); a merge that needs a person is left for one. The policy \
            name 'auto' means the defaults: 'PATTERN auto' leaves conflicts for a person, 'PATTERN auto auto' \
            resolves them with the defaults. Without a rule: json for *.json, text for other UTF-8, latest for \
            binary. The rules travel with the container. The listing ends with which patterns resolve on their own.
            """,
        parameters: [
            GlobalOptions.parameter,
            .option("file", value: "SRC", help: "Replace the rules with this file's content ('-' for standard input)."),
            .flag("json", help: "Print the rules as one JSON document (pattern, policy, auto, line)."),
        ]
    )

    let global: GlobalOptions
    let file: String?
    let json: Bool

    /// Reads the command line.
    init(_ arguments: CommandArguments) throws {
        global = GlobalOptions(arguments)
        file = arguments.value("file")
        json = arguments.flag("json")
        try validate()
    }

    private func validate() throws {
        if json && file != nil { throw UsageError("--json lists the rules; give it without --file") }
    }

    struct Rule: Encodable {
        var pattern: String
        var policy: String
        var auto: Bool
        var line: Int
        var idKeys: [String]
    }

    func run() async throws {
        let container = try global.openContainer()
        guard let file else {
            let text = try await container.policiesText()
            let rules = try PolicyRules(text: text).rules
            if json {
                try Output.json(
                    rules.map { Rule(pattern: $0.pattern.description, policy: $0.policyName, auto: $0.resolvesAutomatically, line: $0.line, idKeys: $0.idKeys) })
                return
            }
            guard !text.isEmpty else {
                print("# no rules: json for *.json, text for UTF-8, latest for binary (policies: \(MergePolicies.names.joined(separator: ", ")))")
                print("# nothing resolves on its own: end a rule with 'auto' (PATTERN POLICY-NAME auto) to let sync resolve it")
                return
            }
            print(text, terminator: text.hasSuffix("\n") ? "" : "\n")
            for rule in rules where !rule.isKnown {
                print("# line \(rule.line): concord does not know the policy \"\(rule.policyName)\" (an app's own): here, documents matching \(rule.pattern) are left for a person")
            }
            let automatic = rules.filter(\.resolvesAutomatically)
            if automatic.isEmpty {
                print("# nothing resolves on its own: end a rule with 'auto' (PATTERN POLICY-NAME auto) to let sync resolve it")
            } else {
                print("# resolve on their own (sync and the agent): " + automatic.map { "\($0.pattern) (\($0.policyName), line \($0.line))" }.joined(separator: ", "))
            }
            return
        }
        try await container.setPolicies(String(decoding: try Output.read(file, relativeTo: global), as: UTF8.self))
        print("Saved .concord/policies")
    }
}
