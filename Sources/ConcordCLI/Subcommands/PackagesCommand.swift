import Concord
import FoundationEssentials

struct PackagesCommand: Subcommand {
    static let description = CommandDescription(
        name: "packages",
        abstract: "Show or change the package patterns of .concord/packages.",
        discussion: """
            A package is a folder handled as one document (its files are saved, synced and resolved together); \
            a pattern is a file-name glob such as '*.note', matched against folder names at any depth. \
            'packages --set P...' replaces the patterns (the change travels to every device): a folder the new \
            patterns match becomes one package with its files' history, a package they no longer match \
            becomes its files. Refused, with nothing changed, when a pattern matches a file's name or when a \
            document in conflict would change what it is (resolve it first). 'packages --clear' removes them all.
            """,
        parameters: [
            GlobalOptions.parameter,
            .option("set", value: "PATTERN", help: "Replace the patterns with these.", several: true),
            .flag("clear", help: "Remove every pattern: each package becomes its files."),
        ]
    )

    let global: GlobalOptions
    let set: [String]
    let clear: Bool

    /// Reads the command line.
    init(_ arguments: CommandArguments) throws {
        global = GlobalOptions(arguments)
        set = arguments.values("set")
        clear = arguments.flag("clear")
        try validate()
    }

    private func validate() throws {
        if clear && !set.isEmpty { throw UsageError("give --set PATTERN... or --clear, not both") }
    }

    func run() async throws {
        let container = try global.openContainer()
        if clear || !set.isEmpty {
            try await container.setPackagePatterns(set)
            Output.line(set.isEmpty ? "No package patterns: every folder's files are documents" : "Package patterns: \(set.joined(separator: " "))")
            return
        }
        let patterns = try await container.packagePatterns()
        if patterns.isEmpty { Output.line("# no package patterns: every folder's files are documents (set some with --set '*.note')") }
        for pattern in patterns { Output.line(pattern) }
    }
}
