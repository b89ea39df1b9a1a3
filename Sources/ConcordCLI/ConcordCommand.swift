public import ArgumentParser
import Concord
import Foundation

/// The `concord` command: lists and resolves conflicts between devices' versions of documents.
public struct ConcordCommand: AsyncParsableCommand {
    /// The version `concord --version` prints.
    public static let version = "0.1.0"

    /// The root command: its name, abstract, version and subcommands.
    public static let configuration = CommandConfiguration(
        commandName: "concord",
        abstract: "Keep versioned documents in sync across devices and resolve their conflicts.",
        discussion: """
            A container is a git repository of documents; each device holds a clone and the cloud is its \
            git remote. When two devices change a document concurrently, the document enters the \
            in-conflict state on every device until it is resolved. Give -C PATH before or after the \
            subcommand to run as if started in PATH.
            """,
        version: version,
        subcommands: [
            InitCommand.self, CloneCommand.self, SaveCommand.self, RemoveCommand.self, ListCommand.self,
            SyncCommand.self, AirplaneCommand.self, ConflictsCommand.self, VersionsCommand.self,
            ShowCommand.self, ResolveCommand.self, LogCommand.self, MoveCommand.self, MergeFileCommand.self,
            KeyValueCommand.self, AdoptCommand.self, EvictCommand.self, PoliciesCommand.self, GCCommand.self,
            WatchCommand.self, StatusCommand.self, PackagesCommand.self, LimitsCommand.self, DiffCommand.self,
            UICommand.self,
        ]
    )

    /// Makes the root command (ArgumentParser fills in its options when parsing).
    public init() {}

    /// Runs the command line: a leading `-C PATH` is moved after the subcommand name, where
    /// each subcommand's options take it. First, the secrets of cloud URLs among the process's
    /// arguments are hidden from the process list (``ArgumentSecrets``).
    /// Exit codes: 0 done, 1 failed, 2 bad usage, 3 a merge needs a person.
    public static func run(arguments: [String]) async -> Never {
        ArgumentSecrets.hideFromProcessList()
        if let problem = ProcessEnvironment.environmentProblem {
            Output.printError("concord: \(problem)")
            Foundation.exit(1)
        }
        // Document paths are read from the folder the command runs in, while parsing and in
        // the commands that messages suggest.
        await DocumentLocation.$current.withValue(DocumentLocation(arguments: arguments)) {
            do {
                var command = try parseCommandLine(arguments)
                if var asyncCommand = command as? any AsyncParsableCommand {
                    try await asyncCommand.run()
                } else {
                    try command.run()
                }
                Foundation.exit(0)
            } catch {
                fail(error)
            }
        }
        Foundation.exit(0)
    }

    /// Parses a command line. A refused document path comes back as its ``PathRefusal``, which
    /// says why, in place of argument-parser's usage error, which only says that it failed; a
    /// subcommand that does not exist (or `help` of one) as an ``UnknownCommand``.
    static func parseCommandLine(_ arguments: [String]) throws -> any ParsableCommand {
        let commands = configuration.subcommands.compactMap { $0.configuration.commandName }
        if let unknown = UnknownCommand.find(in: arguments, commands: commands) { throw unknown }
        let collector = PathRefusal.Collector()
        do {
            return try PathRefusal.$collector.withValue(collector) { try parseAsRoot(reorderingGlobalOptions(arguments)) }
        } catch {
            if let refusal = collector.refusal, exitCode(for: error) == .validationFailure { throw refusal }
            throw error
        }
    }

    /// The one place where a failure becomes its exit status: a Concord error is one line on
    /// stderr and exit 1 (3 when a merge needs a person), a refused document path or an unknown
    /// command one line and exit 2, other bad usage exits 2 with argument-parser's message, help and version exit 0.
    private static func fail(_ error: any Error) -> Never {
        switch error {
        case let error as ConcordError:
            Output.printError("concord: \(error.commandLineMessage)")
            Foundation.exit(1)
        case let refusal as PathRefusal:
            Output.printError("concord: \(refusal.reason)")
            Foundation.exit(2)
        case let unknown as UnknownCommand:
            Output.printError("concord: \(unknown)")
            Foundation.exit(2)
        case let error as NeedsPersonError:
            // Without a marked-up merge to finish, a person picks: the resolve forms that do.
            let hint = error.markedUp == nil ? " (keep one with --keep ID or --latest, both with --keep-both, or give the content with --file SRC)" : ""
            Output.printError("concord: \(error.description)\(hint)")
            Foundation.exit(3)
        default:
            let code = exitCode(for: error)
            if code == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(2)
            }
            // Help, version and an exit status a command chose are argument-parser's to finish.
            if code != .failure || error is ExitCode { Self.exit(withError: error) }
            Output.printError("concord: \(error)")
            Foundation.exit(1)
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
