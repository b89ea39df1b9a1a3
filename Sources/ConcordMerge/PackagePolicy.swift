import FoundationEssentials

/// Merges package documents (folders handled as one document) file by file.
///
/// A file added, changed or removed by one version only is taken as that version has it; a file
/// changed by several versions differently merges with the policy ``PolicyRules`` selects for
/// its path (the package's path, a slash, the file's path inside the package). The package
/// needs a person when one of its files does; the marked-up package then holds every merged
/// file, and for each file that needs a person its marked-up content (the current version's
/// file when the file's policy offers none).
public struct PackagePolicy: MergePolicy {
    /// The name that selects this policy.
    public static let policyName = "package"

    /// The rules that select each file's policy.
    public var rules: PolicyRules
    /// The package's path in the container; empty when unknown.
    public var path: String

    /// Creates the policy.
    public init(rules: PolicyRules = PolicyRules(), path: String = "") {
        self.rules = rules
        self.path = path
    }

    /// `package` on the command line and in `.concord/policies`.
    public var name: String { PackagePolicy.policyName }

    /// Merges the packages file by file, each file changed on several sides with the policy
    /// ``rules`` select for it.
    public func merge(base: DocumentContent?, versions: [MergeVersion]) -> MergeOutcome {
        decide(base: base, versions: versions).outcome
    }

    /// The merge of ``merge(base:versions:)``, with the notes of the files' policies, each after
    /// the file's name.
    public func decide(base: DocumentContent?, versions: [MergeVersion]) -> MergeDecision {
        let versions = MergeInputs.canonical(versions)
        if let outcome = MergeInputs.trivialOutcome(base: base, versions: versions) { return MergeDecision(outcome: outcome) }
        let current = MergeInputs.current(of: versions)
        if let deleted = versions.first(where: { $0.content == nil }) {
            return MergeDecision(
                outcome: .needsPerson(
                    reason: "\(deleted.deviceName) deleted the package while another device changed it",
                    markedUp: current?.content))
        }
        var baseFiles: [String: Data] = [:]
        switch base {
        case nil: break
        case let .package(files)?: baseFiles = files
        case .file?: return MergeDecision(outcome: .needsPerson(reason: "the common ancestor is a file, not a package", markedUp: nil))
        }
        var sides: [[String: Data]] = []
        for version in versions {
            guard case let .package(files)? = version.content else {
                return MergeDecision(outcome: .needsPerson(reason: "\(version.deviceName)'s version is a file, not a package", markedUp: nil))
            }
            sides.append(files)
        }
        var names = Set(baseFiles.keys)
        for side in sides { names.formUnion(side.keys) }
        var merged: [String: Data] = [:]
        var markedUp: [String: Data] = [:]
        var problems: [String] = []
        var notes: [String] = []
        for name in names.sorted() {
            let componentBase = baseFiles[name].map { DocumentContent.file($0) }
            let componentVersions = zip(versions, sides).map { version, files -> MergeVersion in
                var component = version
                component.content = files[name].map { DocumentContent.file($0) }
                return component
            }
            let decision =
                MergeInputs.trivialOutcome(base: componentBase, versions: componentVersions).map { MergeDecision(outcome: $0) }
                ?? rules.policy(for: path.isEmpty ? name : "\(path)/\(name)", versions: componentVersions)
                .decide(base: componentBase, versions: componentVersions)
            if let note = decision.note { notes.append("\(name): \(note)") }
            switch decision.outcome {
            case let .merged(content):
                if let data = content?.fileData {
                    merged[name] = data
                    markedUp[name] = data
                }
            case let .needsPerson(reason, marked):
                problems.append("\(name): \(reason)")
                let currentFile = componentVersions.first { $0.isCurrent }?.content?.fileData
                if let data = marked?.fileData ?? currentFile { markedUp[name] = data }
            }
        }
        let note = notes.isEmpty ? nil : notes.joined(separator: "; ")
        if problems.isEmpty { return MergeDecision(outcome: .merged(.package(merged)), note: note) }
        return MergeDecision(outcome: .needsPerson(reason: problems.joined(separator: "; "), markedUp: .package(markedUp)), note: note)
    }
}
