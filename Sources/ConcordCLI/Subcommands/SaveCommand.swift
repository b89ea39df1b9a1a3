import ArgumentParser
import Concord
import ConcordMerge
import Foundation

struct SaveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "save",
        abstract: "Save a version of a document.",
        discussion: """
            The content comes from --file SRC ('-' for standard input), else from standard input when it \
            is a pipe or a file, else from the document's file in the work tree. The version is one \
            commit that changes only that document.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The document's path, relative to the container root.")
    var document: String

    @Option(help: ArgumentHelp("Read the content from SRC ('-' for standard input).", valueName: "SRC"))
    var file: String?

    func run() async throws {
        try await Output.guarding {
            let path = try Output.document(document)
            let container = try global.openContainer()
            let result: SaveResult
            if let file {
                result = try container.save(path, content: .file(try Output.read(file, relativeTo: global)))
            } else if Self.standardInputHasData {
                result = try container.save(path, content: .file(FileHandle.standardInput.readDataToEndOfFile()))
            } else {
                result = try container.save(path)
            }
            if let version = result.version {
                print("Saved \(path) as version \(version.prefix(7)) on \(container.device.name)")
            } else {
                print("\(path) is unchanged")
            }
        }
    }

    /// True when standard input is a pipe or a regular file (not a terminal, not /dev/null).
    static var standardInputHasData: Bool {
        var info = stat()
        guard fstat(0, &info) == 0 else { return false }
        let type = info.st_mode & S_IFMT
        return type == S_IFIFO || type == S_IFREG || type == S_IFSOCK
    }
}
