import ArgumentParser
import Concord
import Foundation

struct RemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm",
        abstract: "Delete a document, saved as a version that records the deletion."
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The document's path, relative to the container root.")
    var document: String

    func run() async throws {
        try await Output.guarding {
            let path = try Output.document(document)
            let container = try global.openContainer()
            let result = try container.remove(path)
            Output.line("Deleted \(path) as version \(result.version?.prefix(7) ?? "?") on \(container.device.name)")
        }
    }
}
