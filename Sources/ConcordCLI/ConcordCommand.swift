import Concord
import FoundationEssentials
internal import Glibc

/// The `concord` command: lists and resolves conflicts between devices' versions of documents.
public enum ConcordCommand {
    /// The version `concord --version` prints.
    public static let version = "0.1.0"

    /// The root's name, abstract and discussion, for `concord --help`.
    static let description = CommandDescription(
        name: "concord",
        abstract: "Keep versioned documents in sync across devices and resolve their conflicts.",
        discussion: """
            A container is a git repository of documents; each device holds a clone and the cloud is its \
            git remote. When two devices change a document concurrently, the document enters the \
            in-conflict state on every device until it is resolved. Give -C PATH before or after the \
            subcommand to run as if started in PATH.
            """,
        parameters: []
    )

    /// The subcommands, in the order help lists them.
    static let subcommands: [any Subcommand.Type] = [
        InitCommand.self, CloneCommand.self, SaveCommand.self, RemoveCommand.self, ListCommand.self,
        SyncCommand.self, AirplaneCommand.self, ConflictsCommand.self, VersionsCommand.self,
        ShowCommand.self, ResolveCommand.self, LogCommand.self, MoveCommand.self, MergeFileCommand.self,
        KeyValueCommand.self, AdoptCommand.self, EvictCommand.self, PoliciesCommand.self, GCCommand.self,
        WatchCommand.self, StatusCommand.self, PackagesCommand.self, LimitsCommand.self, DiffCommand.self,
        UICommand.self,
    ]

    /// Runs the command line: a leading `-C PATH` is moved after the subcommand name, where
    /// each subcommand's options take it. First, the secrets of cloud URLs among the process's
    /// arguments are hidden from the process list (``ArgumentSecrets``).
    /// Exit codes: 0 done, 1 failed, 2 bad usage, 3 a merge needs a person.
    public static func run(arguments: [String]) async -> Never {
        ArgumentSecrets.hideFromProcessList()
        if let problem = ProcessEnvironment.environmentProblem {
            Output.printError("concord: \(problem)")
            Glibc.exit(1)
        }
        // Document paths are read from the folder the command runs in, while parsing and in
        // the commands that messages suggest.
        await DocumentLocation.$current.withValue(DocumentLocation(arguments: arguments)) {
            var described = description
            do {
                let command = try parseCommandLine(arguments, describing: &described)
                try await command.run()
                Glibc.exit(0)
            } catch {
                fail(error, of: described)
            }
        }
        Glibc.exit(0)
    }

    /// Reads a command line into the subcommand it runs, setting `described` to that
    /// subcommand's description as soon as it is known.
    /// - Throws: ``UnknownCommand`` for a subcommand (or `help` of one) that does not exist,
    ///   ``HelpRequest`` for help and the version, ``UsageError`` and ``PathRefusal`` for bad usage.
    static func parseCommandLine(_ arguments: [String], describing described: inout CommandDescription) throws -> any Subcommand {
        if let unknown = UnknownCommand.find(in: arguments, commands: subcommands.map { $0.description.name }) { throw unknown }
        let words = reorderingGlobalOptions(arguments)
        guard let name = words.first else { throw HelpRequest.help(description) }
        if name == "help" {
            let named = words.dropFirst().first.flatMap { subcommand(named: $0) }
            throw HelpRequest.help(named?.description ?? description)
        }
        guard let type = subcommand(named: name) else {
            _ = try CommandArguments(words, for: description)
            throw HelpRequest.help(description)
        }
        described = type.description
        return try type.make(CommandArguments(words.dropFirst(), for: described))
    }

    private static func subcommand(named name: String) -> (any Subcommand.Type)? {
        subcommands.first { $0.description.name == name }
    }

    /// The one place where a failure becomes its exit status: a Concord error is one line on
    /// stderr and exit 1 (3 when a merge needs a person), a refused document path or an unknown
    /// command one line and exit 2, other bad usage exits 2 with the usage of `command`, help
    /// and version print on stdout and exit 0.
    private static func fail(_ error: any Error, of command: CommandDescription) -> Never {
        switch error {
        case let error as ConcordError:
            Output.printError("concord: \(error.commandLineMessage)")
            Glibc.exit(1)
        case let refusal as PathRefusal:
            Output.printError("concord: \(refusal.reason)")
            Glibc.exit(2)
        case let unknown as UnknownCommand:
            Output.printError("concord: \(unknown)")
            Glibc.exit(2)
        case let error as UsageError:
            Output.standardError(error.report(for: command))
            Glibc.exit(2)
        case let request as HelpRequest:
            switch request {
            case let .help(described):
                print(described.help(subcommands: described.name == description.name ? subcommands.map { $0.description } : []), terminator: "")
            case .version:
                print(version)
            }
            Glibc.exit(0)
        case let status as ExitStatus:
            Glibc.exit(status.code)
        case let error as NeedsPersonError:
            // Without a marked-up merge to finish, a person picks: the resolve forms that do.
            let hint = error.markedUp == nil ? " (keep one with --keep ID or --latest, both with --keep-both, or give the content with --file SRC)" : ""
            Output.printError("concord: \(error.description)\(hint)")
            Glibc.exit(3)
        default:
            Output.printError("concord: \(error)")
            Glibc.exit(1)
        }
    }

    static func reorderingGlobalOptions(_ arguments: [String]) -> [String] {
        var leading: [String] = []
        var rest = arguments[...]
        while let first = rest.first, first == "-C" || first.hasPrefix("-C") && first.count > 2 && !first.hasPrefix("--") {
            if first == "-C" {
                guard rest.count >= 2 else { break }
                leading += rest.prefix(2)
                rest = rest.dropFirst(2)
            } else {
                leading.append(first)
                rest = rest.dropFirst()
            }
        }
        guard !leading.isEmpty, let subcommand = rest.first else { return arguments }
        return [subcommand] + leading + rest.dropFirst()
    }
}
