import Concord
import FoundationEssentials

struct LogCommand: Subcommand {
    static let description = CommandDescription(
        name: "log",
        abstract: "Show the document's history, newest first.",
        discussion: "Resolved and removed versions stay in the history.",
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
        for version in try await global.openContainer().versions(of: document) {
            var tags: [String] = []
            if version.isCurrent { tags.append("current") }
            if version.isConflict { tags.append("conflict") }
            if version.isFolder { tags.append("a folder of documents") } else if version.isDeleted { tags.append("deleted") }
            if let old = version.renamedFrom { tags.append("renamed from \(old)") }
            if let new = version.renamedTo { tags.append("renamed to \(new)") }
            if version.document != document { tags.append("as \(version.document)") }
            if !version.resolves.isEmpty { tags.append("resolves \(version.resolves.map { String($0.prefix(7)) }.joined(separator: " "))") }
            let suffix = tags.isEmpty ? "" : "  (\(tags.joined(separator: ", ")))"
            Output.line(
                "\(version.id.prefix(7))  \(Output.date(version.modified))  \(version.deviceName)  clock \(version.clock)  \(version.isDeleted ? 0 : version.size) bytes\(suffix)")
        }
    }
}
