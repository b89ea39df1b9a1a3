import Concord
import FoundationEssentials

struct RemoveCommand: Subcommand {
    static let description = CommandDescription(
        name: "rm",
        abstract: "Delete a document, saved as a version that records the deletion.",
        parameters: [
            GlobalOptions.parameter,
            .document,
        ]
    )

    let global: GlobalOptions
    let document: DocumentPath

    /// Reads the command line.
    init(_ arguments: CommandArguments) throws {
        global = GlobalOptions(arguments)
        document = try arguments.document("document")
    }

    func run() async throws {
        let container = try global.openContainer()
        let result = try await container.remove(document)
        Output.line("Deleted \(document) as version \(result.version?.prefix(7) ?? "?") on \(container.device.name)")
    }
}
