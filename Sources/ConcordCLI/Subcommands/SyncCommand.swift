import Concord
import FoundationEssentials
internal import Glibc

struct SyncCommand: Subcommand {
    static let description = CommandDescription(
        name: "sync",
        abstract: "Fetch from the cloud, integrate, push; report new conflicts and updated documents.",
        discussion: """
            Conflicts whose rule in .concord/policies ends with 'auto' are resolved before the push, with             the rule's policy, as 'concord resolve' would (every version stays in the history); one the policy             cannot merge without a person stays in conflict, with one line saying why. In airplane mode, or             when the cloud cannot be reached, nothing is sent and nothing is lost: sync again later.
            """,
        parameters: [
            GlobalOptions.parameter,
            .json,
        ]
    )

    let global: GlobalOptions
    let json: Bool

    /// Reads the command line.
    init(_ arguments: CommandArguments) throws {
        global = GlobalOptions(arguments)
        json = arguments.flag("json")
    }

    struct Report: Encodable {
        var outcome: String
        var updated: [String]
        var newConflicts: [String]
        var conflicts: [String]
        var pushed: Int
        var attempts: Int
        var autoResolved: [ResolveJSON]
        var autoUnresolved: [Unresolved]
    }

    struct Unresolved: Encodable {
        var document: String
        var rule: String
        var reason: String
    }

    func run() async throws {
        let showProgress = !json && isatty(2) == 1
        var options = Container.Options.commandLine
        if showProgress {
            options.progress = { progress in
                guard progress.totalObjects > 0 else { return }
                let line = "\rReceiving objects: \(progress.receivedObjects)/\(progress.totalObjects), \(progress.receivedBytes / 1024) KiB"
                Output.standardError(line)
            }
        }
        let container = try global.openContainer(options: options)
        let report = try await container.sync()
        if showProgress { Output.standardError("\r\u{1B}[K") }
        if json {
            try Output.json(
                Report(
                    outcome: report.outcome.rawValue, updated: report.updatedDocuments.map(\.value),
                    newConflicts: report.newConflicts.map(\.value), conflicts: report.conflicts.map(\.value),
                    pushed: report.pushedCommits, attempts: report.attempts,
                    autoResolved: report.autoResolved.map { ResolveJSON($0, dryRun: false) },
                    autoUnresolved: report.autoResolveFailures.map {
                        Unresolved(document: $0.document.value, rule: $0.rule, reason: $0.reason)
                    }))
            return
        }
        switch report.outcome {
        case .upToDate: Output.line("Up to date with \(container.cloudURL ?? "the cloud")")
        case .pushed: Output.line("Sent \(report.pushedCommits) commit\(report.pushedCommits == 1 ? "" : "s") to the cloud")
        case .fastForwarded: Output.line("Received new versions from the cloud")
        case .integrated: Output.line("Integrated the cloud's versions with this device's and sent the result")
        }
        for document in report.updatedDocuments { Output.line("  updated      \(document)") }
        for resolution in report.autoResolved { Output.line("  resolved     \(resolution.document) (auto): \(resolution.explanation)") }
        for document in report.newConflicts {
            guard let left = report.autoResolveFailures.first(where: { $0.document == document }) else {
                Output.line("  in conflict  \(document)")
                continue
            }
            Output.line("  in conflict  \(document): its rule '\(left.rule)' did not resolve it, a person must: \(left.reason)")
        }
        let older = report.conflicts.filter { !report.newConflicts.contains($0) }
        if !older.isEmpty { Output.line("\(older.count) other document\(older.count == 1 ? "" : "s") still in conflict (concord conflicts)") }
    }
}
