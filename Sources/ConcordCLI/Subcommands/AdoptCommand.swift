import ArgumentParser
import Concord
import Foundation

struct AdoptCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "adopt",
        abstract: "Move a local file or package folder into the container as a document.",
        discussion: "The document is saved before the local copy is removed: an interruption never loses it."
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The local file or folder, outside the container.")
    var path: String

    @Argument(help: "The document's path, relative to the current folder.")
    var document: DocumentPath

    func run() async throws {
        let container = try global.openContainer()
        let result = try await container.adopt(fileAt: global.resolvePath(path), as: document)
        Output.line("Adopted \(path) as \(document)\(result.version.map { ", version \($0.prefix(7))" } ?? "")")
    }
}
