import Concord
import FoundationEssentials

struct AdoptCommand: Subcommand {
    static let description = CommandDescription(
        name: "adopt",
        abstract: "Move a local file or package folder into the container as a document.",
        discussion: "The document is saved before the local copy is removed: an interruption never loses it.",
        parameters: [
            GlobalOptions.parameter,
            .argument("path", help: "The local file or folder, outside the container."),
            .document,
        ]
    )

    let global: GlobalOptions
    let path: String
    let document: DocumentPath

    /// Reads the command line.
    init(_ arguments: CommandArguments) throws {
        global = GlobalOptions(arguments)
        path = arguments.argument("path")
        document = try arguments.document("document")
    }

    func run() async throws {
        let container = try global.openContainer()
        let result = try await container.adopt(fileAt: global.resolvePath(path), as: document)
        Output.line("Adopted \(path) as \(document)\(result.version.map { ", version \($0.prefix(7))" } ?? "")")
    }
}
