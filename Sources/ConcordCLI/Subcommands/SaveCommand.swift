import Concord
import ConcordMerge
import FoundationEssentials
internal import Glibc

struct SaveCommand: Subcommand {
    static let description = CommandDescription(
        name: "save",
        abstract: "Save a version of a document.",
        discussion: """
            With --all, every document added, changed or removed in the work tree is saved in one \
            commit (atomic, and an import of a large folder stays one commit). Otherwise the content comes from --file SRC ('-' for standard input), else from standard input when it \
            is a pipe or a file, else from the document's file in the work tree. The version is one \
            commit that changes only that document. DOC is a path from the current folder (from the \
            container root when run there). A path the ignore rules leave out (concord ls --ignored) \
            is refused unless --force; save --all passes over ignored files without a word.
            """,
        parameters: [
            GlobalOptions.parameter,
            .optionalDocument,
            .flag("all", help: "Save every document added, changed or removed in the work tree, in one commit."),
            .option("file", value: "SRC", help: "Read the content from SRC ('-' for standard input)."),
            .flag("force", help: "Save the document even if the ignore rules leave it out."),
        ]
    )

    let global: GlobalOptions
    let document: DocumentPath?
    let all: Bool
    let file: String?
    let force: Bool

    /// Reads the command line.
    init(_ arguments: CommandArguments) throws {
        global = GlobalOptions(arguments)
        document = try arguments.documentIfGiven("document")
        all = arguments.flag("all")
        file = arguments.value("file")
        force = arguments.flag("force")
        try validate()
    }

    private func validate() throws {
        if all {
            guard document == nil, file == nil else { throw UsageError("--all saves the whole work tree: give no document and no --file") }
            guard !force else { throw UsageError("--force goes with a document: save --all never saves an ignored file") }
        } else if document == nil {
            throw UsageError("give the document to save, or --all")
        }
    }

    func run() async throws {
        guard let document, !all else { return try saveAll() }
        let container = try global.openContainer()
        let result: SaveResult
        if let file {
            result = try await container.save(document, content: .file(try Output.read(file, relativeTo: global)), force: force)
        } else if Self.standardInputHasData {
            result = try await container.save(document, content: .file(try Output.read("-", relativeTo: global)), force: force)
        } else {
            result = try await container.save(document, force: force)
        }
        if let version = result.version {
            Output.line("Saved \(document) as version \(version.prefix(7)) on \(container.device.name)")
        } else {
            Output.line("\(document) is unchanged")
        }
    }

    private func saveAll() throws {
        let container = try global.openContainer()
        let result = try container.saveAll()
        for skipped in result.skipped { Output.printError("concord: skipped \(skipped.path): \(skipped.reason)") }
        guard let version = result.version else {
            Output.line("Nothing to save")
            return
        }
        let count = result.added.count + result.changed.count + result.removed.count
        Output.line(
            "Saved \(count) document\(count == 1 ? "" : "s") in one version \(version.prefix(7)) on \(container.device.name): \(result.added.count) added, \(result.changed.count) changed, \(result.removed.count) removed"
                + (result.renamed.isEmpty ? "" : ", \(result.renamed.count) renamed")
        )
        for (new, old) in result.renamed.sorted(by: { $0.key < $1.key }) { Output.line("  renamed  \(old) to \(new)") }
    }

    /// True when standard input is a pipe or a regular file (not a terminal, not /dev/null).
    static var standardInputHasData: Bool {
        var info = stat()
        guard fstat(0, &info) == 0 else { return false }
        let type = info.st_mode & S_IFMT
        return type == S_IFIFO || type == S_IFREG || type == S_IFSOCK
    }
}
