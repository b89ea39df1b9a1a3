import ArgumentParser
import Concord
import Foundation

struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Fetch from the cloud, integrate, push; report new conflicts and updated documents.",
        discussion: "In airplane mode, or when the cloud cannot be reached, nothing is sent and nothing is lost: sync again later."
    )

    @OptionGroup var global: GlobalOptions

    @Flag(help: "Print one JSON document.")
    var json = false

    struct Report: Encodable {
        var outcome: String
        var updated: [String]
        var newConflicts: [String]
        var conflicts: [String]
        var pushed: Int
        var attempts: Int
    }

    func run() async throws {
        let showProgress = !json && isatty(2) == 1
        var options = Container.Options.commandLine
        if showProgress {
            options.progress = { progress in
                guard progress.totalObjects > 0 else { return }
                let line = "\rReceiving objects: \(progress.receivedObjects)/\(progress.totalObjects), \(progress.receivedBytes / 1024) KiB"
                FileHandle.standardError.write(Data(line.utf8))
            }
        }
        let container = try global.openContainer(options: options)
        let report = try await container.sync()
        if showProgress { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        if json {
            try Output.json(
                Report(
                    outcome: report.outcome.rawValue, updated: report.updatedDocuments.map(\.value),
                    newConflicts: report.newConflicts.map(\.value), conflicts: report.conflicts.map(\.value),
                    pushed: report.pushedCommits, attempts: report.attempts))
            return
        }
        switch report.outcome {
        case .upToDate: Output.line("Up to date with \(container.cloudURL ?? "the cloud")")
        case .pushed: Output.line("Sent \(report.pushedCommits) commit\(report.pushedCommits == 1 ? "" : "s") to the cloud")
        case .fastForwarded: Output.line("Received new versions from the cloud")
        case .integrated: Output.line("Integrated the cloud's versions with this device's and sent the result")
        }
        for document in report.updatedDocuments { Output.line("  updated      \(document)") }
        for document in report.newConflicts { Output.line("  in conflict  \(document)") }
        let older = report.conflicts.filter { !report.newConflicts.contains($0) }
        if !older.isEmpty { Output.line("\(older.count) other document\(older.count == 1 ? "" : "s") still in conflict (concord conflicts)") }
    }
}
