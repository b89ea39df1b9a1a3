import Concord
import FoundationEssentials

struct ConflictsCommand: Subcommand {
    static let description = CommandDescription(
        name: "conflicts",
        abstract: "List the documents in conflict.",
        discussion: "Reads the conflict records only, so it costs the same whatever the number of documents.",
        parameters: [
            GlobalOptions.parameter,
            .json,
        ]
    )

    let global: GlobalOptions
    let json: Bool

    /// Reads the command line.
    init(_ arguments: CommandArguments) throws {
        global = GlobalOptions(arguments)
        json = arguments.flag("json")
    }

    struct Entry: Encodable {
        var document: String
        var versions: Int
        var conflictVersions: [String]
    }

    func run() async throws {
        let conflicts = try await global.openContainer().conflicts()
        if json {
            try Output.json(
                conflicts.map {
                    Entry(document: $0.document.value, versions: $0.versionCount, conflictVersions: $0.conflictVersionIDs)
                })
            return
        }
        if conflicts.isEmpty { Output.line("No document in conflict") }
        for conflict in conflicts {
            Output.line("\(conflict.document)  (\(conflict.versionCount) versions)")
        }
    }
}
