internal import Concord
import ConcordMerge
import FoundationEssentials
internal import GitStore

/// `concord merge-file`: merges three versions of a file with a Concord policy, with the exit
/// status of a git merge driver.
struct MergeFileCommand: Subcommand {
    static let description = CommandDescription(
        name: "merge-file",
        abstract: "Merge three versions of a file with a Concord policy (usable as a git merge driver).",
        discussion: """
            Writes the result into CURRENT. Exits 0 when merged (a line on stderr says how, when the \
            policy has something to tell: for example that json took git's line merge), 1 when a person \
            must finish the merge (CURRENT then holds conflict markers, as git merge-file writes them, \
            and stderr says why), 2 on bad usage or when a file cannot be read or written. An empty BASE means no common ancestor. With \
            latest-wins (`latest`, `json-latest`), OTHER counts as the later version.

            As a git merge driver:
              git config merge.concord-json.driver 'concord merge-file --policy json --path %P %O %A %B'
              echo '*.json merge=concord-json' >> .gitattributes
            """,
        parameters: [
            .option("policy", value: "name", help: "The merge policy (default: chosen from the file's name and content)."),
            .option("path", value: "path", help: "The document's path, to choose the default policy (git: %P; default: CURRENT)."),
            .option("id-key", value: "key", help: "A member name that identifies the objects of JSON arrays, tried before id, _id and uuid (repeatable).", repeatable: true),
            .option("current-label", value: "current-label", help: "The name conflict markers give the current version. (default: current)"),
            .option("other-label", value: "other-label", help: "The name conflict markers give the other version. (default: other)"),
            .argument("base", help: "The common ancestor's content."),
            .argument("current", help: "The current version's content, replaced by the result."),
            .argument("other", help: "The other version's content."),
        ]
    )

    let policy: String?
    let path: String?
    let idKey: [String]
    let currentLabel: String
    let otherLabel: String
    let base: String
    let current: String
    let other: String

    /// Reads the command line.
    init(_ arguments: CommandArguments) throws {
        policy = arguments.value("policy")
        path = arguments.value("path")
        idKey = arguments.values("id-key")
        currentLabel = arguments.value("current-label") ?? "current"
        otherLabel = arguments.value("other-label") ?? "other"
        base = arguments.argument("base")
        current = arguments.argument("current")
        other = arguments.argument("other")
        try validate()
    }

    private func validate() throws {
        if let policy, MergePolicies.named(policy) == nil {
            throw UsageError("unknown policy \"\(policy)\" (known: \(MergePolicies.names.joined(separator: ", ")))")
        }
    }

    func run() throws {
        let contents: [Data]
        do {
            contents = try [base, current, other].map { try Output.read(file: $0, named: $0) }
        } catch let error as ConcordError {
            Output.standardError("concord merge-file: \(error.commandLineMessage)\n")
            throw ExitStatus(code: 2)
        }
        let merge = FileMerge(
            policy: selectedPolicy(current: contents[1], other: contents[2]),
            currentLabel: currentLabel, otherLabel: otherLabel)
        let result = merge.merge(base: contents[0], current: contents[1], other: contents[2])
        do {
            try RegularFile.write(result.content, to: current, at: 0)
        } catch {
            Output.standardError("concord merge-file: \(error)\n")
            throw ExitStatus(code: 2)
        }
        if let reason = result.reason {
            Output.standardError("concord merge-file: \(path ?? current): \(reason)\n")
            throw ExitStatus(code: 1)
        }
        if let note = result.note {
            Output.standardError("concord merge-file: \(path ?? current): \(note)\n")
        }
    }

    private func selectedPolicy(current: Data, other: Data) -> any MergePolicy {
        let versions = FileMerge(policy: LatestWinsPolicy()).versions(current: current, other: other)
        let selected = policy.flatMap(MergePolicies.named) ?? PolicyRules().policy(for: path ?? self.current, versions: versions)
        if let json = selected as? JSONMergePolicy, !idKey.isEmpty {
            return JSONMergePolicy(settlesConflictsByLatest: json.settlesConflictsByLatest, idKeys: idKey)
        }
        return selected
    }
}
