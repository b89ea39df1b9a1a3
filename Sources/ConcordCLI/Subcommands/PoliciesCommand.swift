import ArgumentParser
import Concord
import ConcordMerge
import Foundation

struct PoliciesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "policies",
        abstract: "Show or set the merge-policy rules of .concord/policies.",
        discussion: """
            One rule a line, 'PATTERN POLICY-NAME', first match wins, like .gitattributes (for example \
            '*.log union' or 'settings/*.json json-latest'). Without a rule: json for *.json, text for other \
            UTF-8, latest for binary. The rules travel with the container.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Option(help: ArgumentHelp("Replace the rules with this file's content ('-' for standard input).", valueName: "SRC"))
    var file: String?

    func run() async throws {
        let container = try global.openContainer()
        guard let file else {
            let text = try container.policiesText()
            print(
                text.isEmpty ? "# no rules: json for *.json, text for UTF-8, latest for binary (policies: \(MergePolicies.names.joined(separator: ", ")))" : text,
                terminator: text.isEmpty ? "\n" : "")
            return
        }
        try container.setPolicies(String(decoding: try Output.read(file, relativeTo: global), as: UTF8.self))
        print("Saved .concord/policies")
    }
}
