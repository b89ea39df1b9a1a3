import Concord
import ConcordMerge
import FoundationEssentials

struct ResolveCommand: Subcommand {
    static let description = CommandDescription(
        name: "resolve",
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
            """,
        parameters: [
            GlobalOptions.parameter,
            .optionalDocument,
            .flag("all", help: "Resolve every document in conflict (with --latest or --merge), in one commit: all or, when one needs a person, none."),
            .flag("latest", help: "Keep the latest version (causal order, then clock, device id, commit id)."),
            .flag("merge", help: "Merge the versions with a merge policy."),
            .option("policy", value: "NAME", help: "The merge policy (default: selected by .concord/policies)."),
            .option("keep", value: "ID", help: "Keep the version with this id."),
            .option("file", value: "SRC", help: "Use this file's content ('-' for standard input)."),
            .flag("keep-both", help: "Keep the current version, and save each other version beside it as a new document named after its device."),
            .option("output", value: "FILE", help: "When a merge needs a person, write the marked-up merge to FILE."),
            .flag("undo", help: "Undo the resolution that made DOC's current version: a new version with the content current before it, its versions in contention again."),
            .flag("dry-run", help: "Say what would be kept and removed; change nothing."),
            .json,
        ]
    )

    let global: GlobalOptions
    let document: DocumentPath?
    let all: Bool
    let latest: Bool
    let merge: Bool
    let policy: String?
    let keep: String?
    let file: String?
    let keepBoth: Bool
    let output: String?
    let undo: Bool
    let dryRun: Bool
    let json: Bool

    /// Reads the command line.
    init(_ arguments: CommandArguments) throws {
        global = GlobalOptions(arguments)
        document = try arguments.documentIfGiven("document")
        all = arguments.flag("all")
        latest = arguments.flag("latest")
        merge = arguments.flag("merge")
        policy = arguments.value("policy")
        keep = arguments.value("keep")
        file = arguments.value("file")
        keepBoth = arguments.flag("keep-both")
        output = arguments.value("output")
        undo = arguments.flag("undo")
        dryRun = arguments.flag("dry-run")
        json = arguments.flag("json")
        try validate()
    }

    private func validate() throws {
        let chosen = [latest, merge, keep != nil, file != nil, keepBoth, undo].filter { $0 }.count
        guard chosen == 1 else { throw UsageError("give exactly one of --latest, --merge, --keep ID, --keep-both, --file SRC, --undo") }
        if undo && (all || dryRun || json) { throw UsageError("--undo takes one document, without --all, --dry-run or --json") }
        if all {
            guard document == nil else { throw UsageError("give a document or --all, not both") }
            guard latest || merge || keepBoth else { throw UsageError("--all goes with --latest, --merge or --keep-both") }
        } else if document == nil {
            throw UsageError("give the document to resolve, or --all")
        }
        if policy != nil && !merge { throw UsageError("--policy goes with --merge") }
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
