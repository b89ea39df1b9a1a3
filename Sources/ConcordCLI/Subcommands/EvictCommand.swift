import Concord
import FoundationEssentials

struct EvictCommand: Subcommand {
    static let description = CommandDescription(
        name: "evict",
        abstract: "Move a document out of the container to a local-only path.",
        discussion: "The local copy is written before the container records the deletion: an interruption never loses it. The path must not exist yet.",
        parameters: [
            GlobalOptions.parameter,
            .document,
            .argument("path", help: "The local path to move it to, outside the container."),
        ]
    )

    let global: GlobalOptions
    let document: DocumentPath
    let path: String

    /// Reads the command line.
    init(_ arguments: CommandArguments) throws {
        global = GlobalOptions(arguments)
        document = try arguments.document("document")
        path = arguments.argument("path")
    }

    func run() async throws {
        let container = try global.openContainer()
        try await container.evict(document, to: global.resolvePath(path))
        Output.line("Evicted \(document) to \(path); the container records its deletion")
    }
}
