import Concord
import ConcordMerge
import FoundationEssentials
internal import Glibc

struct DiffCommand: Subcommand {
    static let description = CommandDescription(
        name: "diff",
        abstract: "Show how the versions of a document differ, line by line.",
        discussion: """
            Without --version, prints each version in contention against the versions' common ancestor \
            (the base a merge starts from), as unified diffs: the current version first, then each \
            conflict version. With one --version, that version against the current one; with two, \
            the first against the second (ids as 'concord versions' prints them). Coloured on a \
            terminal (unless NO_COLOR is set), plain when piped; --json prints the hunks for tools. \
            A package is compared file by file; binary content cannot be compared line by line.
            """,
        parameters: [
            GlobalOptions.parameter,
            .document,
            .option("version", value: "ID", help: "A version's id, full or abbreviated; give it twice to compare two versions.", repeatable: true),
            .json,
        ]
    )

    let global: GlobalOptions
    let document: DocumentPath
    let versions: [String]
    let json: Bool

    /// Reads the command line.
    init(_ arguments: CommandArguments) throws {
        global = GlobalOptions(arguments)
        document = try arguments.document("document")
        versions = arguments.values("version")
        json = arguments.flag("json")
        try validate()
    }

    private func validate() throws {
        if versions.count > 2 { throw UsageError("give --version at most twice: the version to compare from, then the one to compare to") }
    }

    /// One side of a comparison: a version (nil: none, as when the versions share no ancestor) and its content.
    struct Side {
        var role: String
        var version: DocumentVersion?
        var content: DocumentContent?
    }

    func run() async throws {
        let container = try global.openContainer()
        var pairs: [(old: Side, new: Side)] = []
        var ancestor: DocumentVersion?
        if versions.isEmpty {
            let contention: Contention
            do {
                contention = try await container.contention(of: document)
            } catch ConcordError.notInConflict {
                throw ConcordError.failed("'\(document)' is not in conflict: compare two of its versions with --version ID --version ID")
            }
            ancestor = contention.ancestor?.version
            let base = Side(role: "ancestor", version: contention.ancestor?.version, content: contention.ancestor?.content)
            pairs = contention.versions.map { (base, Side(role: $0.version.isCurrent ? "current" : "conflict", version: $0.version, content: $0.content)) }
        } else {
            let all = try await container.versions(of: document)
            func side(_ id: String?) async throws -> Side {
                let content = try await container.content(of: document, version: id)
                let version = id.map { id in all.first { $0.id.hasPrefix(id.lowercased()) } } ?? all.first(where: \.isCurrent)
                return Side(role: version.map { $0.isCurrent ? "current" : $0.isConflict ? "conflict" : "version" } ?? "version", version: version, content: content)
            }
            pairs = [(try await side(versions[0]), try await side(versions.count > 1 ? versions[1] : nil))]
        }
        let comparisons = try pairs.map { try Comparison(document: document, old: $0.old, new: $0.new) }
        if json {
            try Output.json(DiffJSON(document: document.value, ancestor: ancestor.map { VersionJSON($0, of: document) }, comparisons: comparisons.map(\.json)))
            return
        }
        let painter = Painter(enabled: isatty(1) == 1 && ProcessEnvironment.variable("NO_COLOR") == nil && ProcessEnvironment.variable("TERM") != "dumb")
        var output = ""
        for comparison in comparisons {
            for line in comparison.lines { output += painter.paint(line) + "\n" }
        }
        Output.standardOutput(output)
    }

    /// One version against another: a diff per file (one for a file document, one per file that
    /// differs for a package).
    struct Comparison {
        var old: Side
        var new: Side
        var files: [(path: String, diff: TextDiff)]

        init(document: DocumentPath, old: Side, new: Side) throws {
            self.old = old
            self.new = new
            func files(_ content: DocumentContent?) -> [String: Data] {
                switch content {
                case nil: [:]
                case let .file(data)?: [document.value: data]
                case let .package(files)?: Dictionary(uniqueKeysWithValues: files.map { ("\(document.value)/\($0.key)", $0.value) })
                }
            }
            let before = files(old.content), after = files(new.content)
            self.files = try Set(before.keys).union(after.keys).sorted().compactMap { path -> (path: String, diff: TextDiff)? in
                let oldData = before[path] ?? Data(), newData = after[path] ?? Data()
                guard oldData != newData || (before[path] == nil) != (after[path] == nil) else { return nil }
                do {
                    return (path, try TextDiff(old: oldData, new: newData))
                } catch let error as TextDiff.NotText {
                    let side = error.side == "old" ? old : new
                    throw ConcordError.failed(
                        "'\(path)' is binary in \(Self.label(side)) (\(side.content?.size ?? 0) bytes): a line diff compares text; see 'concord versions \(DocumentLocation.typed(document))'"
                    )
                }
            }
        }

        static func label(_ side: Side) -> String {
            guard let version = side.version else { return "no \(side.role)" }
            return "\(side.role) \(version.id.prefix(7)) (\(version.deviceName), \(Output.date(version.modified)))"
        }

        /// The unified diff's lines, the labels naming each version's role, id, device and date.
        var lines: [String] {
            files.flatMap { path, diff in
                let oldLabel = old.version == nil || old.content == nil ? "/dev/null" : "a/\(path)"
                let newLabel = new.version == nil || new.content == nil ? "/dev/null" : "b/\(path)"
                var lines = diff.unifiedLines(oldLabel: "\(oldLabel)\t\(Self.label(old))", newLabel: "\(newLabel)\t\(Self.label(new))")
                if lines.isEmpty, diff.isEmpty {
                    // A file present on one side only, and empty: no hunk to show, but the sides differ.
                    lines = ["--- \(oldLabel)\t\(Self.label(old))", "+++ \(newLabel)\t\(Self.label(new))"]
                }
                return lines
            }
        }

        var json: ComparisonJSON {
            ComparisonJSON(
                old: old.version.map { VersionJSON($0) }, oldRole: old.role, new: new.version.map { VersionJSON($0) }, newRole: new.role,
                files: files.map { FileDiffJSON(path: $0.path, added: $0.diff.addedCount, removed: $0.diff.removedCount, hunks: $0.diff.hunks) })
        }
    }

    /// Colours for a terminal: removed lines red, added green, hunk headers cyan, file headers bold;
    /// control characters in the lines escaped (tabs kept), as names from the cloud are.
    struct Painter {
        var enabled: Bool

        func paint(_ line: String) -> String {
            guard enabled else { return line }
            let safe = line.split(separator: "\t", omittingEmptySubsequences: false).map { TerminalText.escaped(String($0)) }.joined(separator: "\t")
            let colour =
                if line.hasPrefix("+++") || line.hasPrefix("---") { "1" } else if line.hasPrefix("@@") { "36" } else if line.hasPrefix("+") { "32" } else if line.hasPrefix("-") {
                    "31"
                } else { "" }
            return colour.isEmpty ? safe : "\u{1B}[\(colour)m\(safe)\u{1B}[0m"
        }
    }
}

/// What `diff --json` prints.
struct DiffJSON: Encodable {
    var document: String
    /// The common ancestor, when the versions in contention were compared with it.
    var ancestor: VersionJSON?
    var comparisons: [ComparisonJSON]
}

/// One comparison of `diff --json`: the two versions (nil: none) and the files that differ.
struct ComparisonJSON: Encodable {
    var old: VersionJSON?
    var oldRole: String
    var new: VersionJSON?
    var newRole: String
    var files: [FileDiffJSON]
}

/// One file's line differences in `diff --json`.
struct FileDiffJSON: Encodable {
    var path: String
    var added: Int
    var removed: Int
    var hunks: [TextDiff.Hunk]
}
