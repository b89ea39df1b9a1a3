import ArgumentParser
import Concord
import Foundation

struct EvictCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evict",
        abstract: "Move a document out of the container to a local-only path.",
        discussion: "The local copy is written before the container records the deletion: an interruption never loses it. The path must not exist yet."
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The document's path, relative to the current folder.")
    var document: DocumentPath

    @Argument(help: "The local path to move it to, outside the container.")
    var path: String

    func run() async throws {
        let container = try global.openContainer()
        try await container.evict(document, to: global.resolvePath(path))
        Output.line("Evicted \(document) to \(path); the container records its deletion")
    }
}
