import Concord
import ConcordMerge
import FoundationEssentials
internal import Glibc

struct ShowCommand: Subcommand {
    static let description = CommandDescription(
        name: "show",
        abstract: "Print a version's content.",
        discussion: "For a package, prints each file's path and size.",
        parameters: [
            GlobalOptions.parameter,
            .document,
            .option("version", value: "ID", help: "The version's id, full or abbreviated (default: the current version)."),
        ]
    )

    let global: GlobalOptions
    let document: DocumentPath
    let version: String?

    /// Reads the command line.
    init(_ arguments: CommandArguments) throws {
        global = GlobalOptions(arguments)
        document = try arguments.document("document")
        version = arguments.value("version")
    }

    func run() async throws {
        let container = try global.openContainer()
        if try Self.stream(document, version: version, of: container) { return }
        switch try await container.content(of: document, version: version) {
        case nil:
            throw ConcordError.failed("that version of '\(document)' is a deletion: it has no content")
        case let .file(data)?:
            Output.standardOutput(data)
        case let .package(files)?:
            for (name, data) in files.sorted(by: { $0.key < $1.key }) { print("\(data.count)\t\(TerminalText.escaped(name))") }
        }
    }

    /// Writes a file version's bytes to standard output as they are read; false when it is a
    /// deletion or a package.
    private static func stream(_ document: DocumentPath, version: String?, of container: Container) throws -> Bool {
        try container.withFileContent(of: document, version: version) { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(1, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw ConcordError.io("standard output", reason: String(cString: strerror(errno)))
                }
                offset += written
            }
        }
    }
}
