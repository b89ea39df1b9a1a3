import ArgumentParser
import Concord
import ConcordMerge
import Foundation

struct ResolveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resolve",
        abstract: "Resolve a document in conflict: keep the latest, merge, keep a version or both, or use a file.",
        discussion: """
            The result is saved as the new current version in one commit; the other versions are removed \
            from the document's versions (they stay in the history) and the in-conflict state is cleared. \
            Exit 3 when --merge needs a person: nothing changes; write the marked-up merge with --output FILE, \
            edit it, then finish with --file FILE. --keep-both keeps the current version and saves each other \
            one beside it as a new document named after its device ('todo (Laptop)', 'notes (iPad).md'). \
            A name that is a file in one version and a folder of documents in another: the folder is the \
            current version; keeping the file (--keep ID, --latest, --file) deletes the folder's documents, \
            keeping the folder sets the file aside, --keep-both saves the file beside the folder, and --merge \
            needs a person. --undo undoes the resolution that made DOC's current version (while nothing \
            changed it since): a new version with the content current before it, the versions it resolved in \
            contention again on every device; the resolution stays in the history.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The document's path, relative to the current folder.")
    var document: DocumentPath?

    @Flag(help: "Resolve every document in conflict (with --latest or --merge), in one commit: all or, when one needs a person, none.")
    var all = false

    @Flag(help: "Keep the latest version (causal order, then clock, device id, commit id).")
    var latest = false

    @Flag(help: "Merge the versions with a merge policy.")
    var merge = false

    @Option(help: ArgumentHelp("The merge policy (default: selected by .concord/policies).", valueName: "NAME"))
    var policy: String?

    @Option(help: ArgumentHelp("Keep the version with this id.", valueName: "ID"))
    var keep: String?

    @Option(help: ArgumentHelp("Use this file's content ('-' for standard input).", valueName: "SRC"))
    var file: String?

    @Flag(help: "Keep the current version, and save each other version beside it as a new document named after its device.")
    var keepBoth = false

    @Option(help: ArgumentHelp("When a merge needs a person, write the marked-up merge to FILE.", valueName: "FILE"))
    var output: String?

    @Flag(help: "Undo the resolution that made DOC's current version: a new version with the content current before it, its versions in contention again.")
    var undo = false

    @Flag(help: "Say what would be kept and removed; change nothing.")
    var dryRun = false

    @Flag(help: "Print one JSON document.")
    var json = false

    func validate() throws {
        let chosen = [latest, merge, keep != nil, file != nil, keepBoth, undo].filter { $0 }.count
        guard chosen == 1 else { throw ValidationError("give exactly one of --latest, --merge, --keep ID, --keep-both, --file SRC, --undo") }
        if undo && (all || dryRun || json) { throw ValidationError("--undo takes one document, without --all, --dry-run or --json") }
        if all {
            guard document == nil else { throw ValidationError("give a document or --all, not both") }
            guard latest || merge || keepBoth else { throw ValidationError("--all goes with --latest, --merge or --keep-both") }
        } else if document == nil {
            throw ValidationError("give the document to resolve, or --all")
        }
        if policy != nil && !merge { throw ValidationError("--policy goes with --merge") }
    }

    func run() async throws {
        let container = try global.openContainer()
        if undo, let document {
            let saved = try await container.undoResolution(of: document)
            Output.line("Undid the last resolution of \(document): its versions are in contention again (version \(saved.version?.prefix(7) ?? "?") on \(container.device.name))")
            return
        }
        let resolution = try makeResolution()
        let documents = await all ? try container.conflicts().map(\.document) : [document!]
        let reports: [ResolveReport]
        do {
            reports = try await container.resolve(documents, using: resolution, dryRun: dryRun)
        } catch let error as NeedsPersonError {
            if let output, let markedUp = error.markedUp {
                try write(markedUp, to: global.resolvePath(output))
                Output.printError("concord: wrote the marked-up merge to \(output); edit it, then run: concord resolve \(DocumentLocation.typed(error.document)) --file \(output)")
            }
            throw error
        }
        if json {
            let values = reports.map { ResolveJSON($0, dryRun: dryRun) }
            if all { try Output.json(values) } else { try Output.json(values[0]) }
            return
        }
        if reports.isEmpty { Output.line("No document in conflict") }
        for report in reports { printSummary(report) }
    }

    private func makeResolution() throws -> Resolution {
        if latest { return .latest }
        if keepBoth { return .keepBoth }
        if let keep { return .keep(keep) }
        if let file { return .content(.file(try Output.read(file, relativeTo: global))) }
        guard let policy else { return .mergeBySelection }
        guard let named = MergePolicies.named(policy) else {
            throw ConcordError.unknownPolicy(policy, known: MergePolicies.names)
        }
        return .merge(named)
    }

    private func write(_ content: DocumentContent, to path: String) throws {
        guard case let .file(data) = content else {
            throw ConcordError.failed("the marked-up merge of a package cannot be written to one file")
        }
        guard FileManager.default.createFile(atPath: path, contents: data) else {
            throw ConcordError.io(path, reason: "cannot write")
        }
    }

    private func printSummary(_ report: ResolveReport) {
        let verb = dryRun ? "Would resolve" : "Resolved"
        let outcome = report.kept?.isFolder == true ? " (the folder of documents stays)" : report.isDeletion ? " (the document is deleted)" : ""
        Output.line("\(verb) \(report.document): \(report.explanation)\(outcome)")
        if let kept = report.kept {
            Output.line("  kept     \(kept.id.prefix(7))  \(kept.deviceName)  \(Output.date(kept.modified))  clock \(kept.clock)")
        }
        for version in report.removed {
            let beside = report.savedBeside[version.id].map { "  saved beside as '\(DocumentLocation.typed($0))'" } ?? ""
            Output.line("  removed  \(version.id.prefix(7))  \(version.deviceName)  \(Output.date(version.modified))  clock \(version.clock)\(beside)")
        }
        for warning in report.clockWarnings { Output.line("  note: \(warning)") }
        if let version = report.version { Output.line("  new version \(version.prefix(7))") }
    }
}
