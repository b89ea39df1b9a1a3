import ArgumentParser
import Concord
import Foundation

struct RemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm",
        abstract: "Delete a document, saved as a version that records the deletion."
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The document's path, relative to the current folder.")
    var document: DocumentPath

    func run() async throws {
        let container = try global.openContainer()
        let result = try await container.remove(document)
        Output.line("Deleted \(document) as version \(result.version?.prefix(7) ?? "?") on \(container.device.name)")
    }
}
