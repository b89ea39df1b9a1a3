import Concord
import ConcordMerge
import FoundationEssentials

struct ListCommand: Subcommand {
    static let description = CommandDescription(
        name: "ls",
        abstract: "List documents with their state.",
        discussion: """
            With --watch, keep running and print each change (added, changed, state changed, removed) as it \
            happens, in this process or another, until stopped; with --json, one JSON object a line.

            With --ignored, list what the work tree holds that is not saved, and why: what an ignore rule \
            matches (the rule and its file: .concordignore at the container root, which travels with the \
            container; .git/concord/ignore, this device's own; or Concord's built-in defaults for editors' \
            and systems' temporary files), files over the size limit, symbolic links and empty folders, \
            which are not synced. Rules use gitignore's syntax; the last rule that matches decides, and a \
            '!' rule re-includes (a default too). .gitignore has no effect: Concord is not git.
            """,
        parameters: [
            GlobalOptions.parameter,
            .argument("pattern", help: "A glob on the path or the name (default: every document).", optional: true),
            .flag("json", help: "Print one JSON document (with --watch, one JSON object a line)."),
            .flag("watch", help: "Keep running and print every change until stopped."),
            .flag("ignored", help: "List what is not saved (ignored, over the size limit, links, empty folders), and why."),
        ]
    )

    let global: GlobalOptions
    let pattern: String?
    let json: Bool
    let watch: Bool
    let ignored: Bool

    /// Reads the command line.
    init(_ arguments: CommandArguments) throws {
        global = GlobalOptions(arguments)
        pattern = arguments.value("pattern")
        json = arguments.flag("json")
        watch = arguments.flag("watch")
        ignored = arguments.flag("ignored")
        try validate()
    }

    private func validate() throws {
        if ignored && watch { throw UsageError("--ignored lists once: give it without --watch") }
    }

    struct Entry: Encodable {
        var document: String
        var state: String
        var package: Bool
        var contentId: String
    }

    struct Event: Encodable {
        var event: String
        var document: String
        var state: String?
        var package: Bool?
        var contentId: String?
    }

    /// An entry of `ls --ignored --json`.
    struct IgnoredJSON: Encodable {
        var path: String
        var folder: Bool
        var document: Bool
        /// `rule`, `size`, `symlink`, `emptyFolder`, `invalidName` or `notRegularFile`.
        var reason: String
        var detail: String
        var rule: String?
        /// `built-in`, `.concordignore` or `.git/concord/ignore`.
        var source: String?
        var line: Int?
        var size: Int?
        var limit: Int?
    }

    func run() async throws {
        if watch { return try await watchChanges() }
        if ignored { return try listIgnored() }
        let documents = try await global.openContainer().documents(matching: pattern)
        if json {
            try Output.json(
                documents.map {
                    Entry(document: $0.path.value, state: $0.state.name, package: $0.isPackage, contentId: $0.contentID)
                })
            return
        }
        Output.table(documents.lazy.map { [$0.state.name, $0.isPackage ? "\($0.path)/" : $0.path.value] }, widths: [16])
    }

    private func listIgnored() throws {
        let glob = pattern.map(GlobPattern.init)
        let entries = try global.openContainer().ignoredEntries().filter { glob?.matches($0.path) ?? true }
        if json {
            try Output.json(entries.map(Self.json))
            return
        }
        let shown = entries.map { $0.path + ($0.isFolder ? "/" : "") }
        let width = min(shown.map(\.count).max() ?? 0, 40)
        for (entry, path) in zip(entries, shown) {
            let document = entry.isDocument ? "; a document: it keeps its versions, its edits here are not saved" : ""
            Output.line("\(Output.column(path, width: max(width, path.count) + 2))\(entry.reason)\(document)")
        }
    }

    private static func json(_ entry: IgnoredEntry) -> IgnoredJSON {
        var value = IgnoredJSON(path: entry.path, folder: entry.isFolder, document: entry.isDocument, reason: "", detail: entry.reason.description)
        switch entry.reason {
        case let .rule(rule):
            value.reason = "rule"
            value.rule = rule.pattern
            switch rule.source {
            case .builtIn: value.source = "built-in"
            case let .container(line): (value.source, value.line) = (".concordignore", line)
            case let .device(line): (value.source, value.line) = (".git/concord/ignore", line)
            }
        case let .overSizeLimit(size, limit): (value.reason, value.size, value.limit) = ("size", size, limit)
        case .symbolicLink: value.reason = "symlink"
        case .emptyFolder: value.reason = "emptyFolder"
        case .invalidName: value.reason = "invalidName"
        case .notRegularFile: value.reason = "notRegularFile"
        }
        return value
    }

    private func watchChanges() async throws {
        let container = try global.openContainer()
        for await event in container.query(matching: pattern) {
            switch event {
            case let .gathered(documents):
                for document in documents { emit("gathered", document.path, document) }
            case let .added(info): emit("added", info.path, info)
            case let .changed(info): emit("changed", info.path, info)
            case let .stateChanged(info): emit("stateChanged", info.path, info)
            case let .removed(path): emit("removed", path, nil)
            }
        }
    }

    private func emit(_ event: String, _ path: DocumentPath, _ info: DocumentInfo?) {
        if json {
            let value = Event(event: event, document: path.value, state: info?.state.name, package: info?.isPackage, contentId: info?.contentID)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            if let data = try? encoder.encode(value) { Output.standardOutput(data + Data("\n".utf8)) }
        } else {
            let line = "\(Output.column(event, width: 14))\(Output.column(info?.state.name ?? "-", width: 16))\(path)\n"
            Output.standardOutput(line)
        }
    }
}
