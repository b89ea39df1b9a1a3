import Concord
import FoundationEssentials

struct MoveCommand: Subcommand {
    static let description = CommandDescription(
        name: "mv",
        abstract: "Rename a document, keeping its history.",
        discussion: """
            One version removes OLD and adds NEW with the same content; 'log NEW' and 'versions NEW --all' \
            go on through OLD's versions, and an edit another device makes concurrently under OLD lands on NEW \
            when the two meet. Refused, with nothing changed: NEW exists (a document, a folder, or a file in \
            the work tree), OLD is no document, OLD is in conflict or holds edits not saved.
            """,
        parameters: [
            GlobalOptions.parameter,
            .argument("old", help: "The document's path, relative to the current folder."),
            .argument("new", help: "Its new path, relative to the current folder."),
        ]
    )

    let global: GlobalOptions
    let old: DocumentPath
    let new: DocumentPath

    /// Reads the command line.
    init(_ arguments: CommandArguments) throws {
        global = GlobalOptions(arguments)
        old = try arguments.document("old")
        new = try arguments.document("new")
    }

    func run() async throws {
        let container = try global.openContainer()
        let result = try await container.move(old, to: new)
        Output.line("Renamed \(old) to \(new) as version \(result.version?.prefix(7) ?? "?") on \(container.device.name)")
    }
}
