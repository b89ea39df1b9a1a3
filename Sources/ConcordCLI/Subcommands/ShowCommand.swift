import ArgumentParser
import Concord
import ConcordMerge
import Foundation

struct ShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Print a version's content.",
        discussion: "For a package, prints each file's path and size."
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The document's path, relative to the container root.")
    var document: String

    @Option(help: ArgumentHelp("The version's id, full or abbreviated (default: the current version).", valueName: "ID"))
    var version: String?

    func run() async throws {
        try await Output.guarding {
            let path = try Output.document(document)
            let content = try global.openContainer().content(of: path, version: version)
            switch content {
            case nil:
                throw ConcordError.failed("that version of '\(path)' is a deletion: it has no content")
            case let .file(data)?:
                FileHandle.standardOutput.write(data)
            case let .package(files)?:
                for (name, data) in files.sorted(by: { $0.key < $1.key }) { print("\(data.count)\t\(name)") }
            }
        }
    }
}
