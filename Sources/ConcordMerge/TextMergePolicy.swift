public import FoundationEssentials
internal import Git
internal import GitStore

/// A three-way line merge of UTF-8 text by git's own xdiff algorithm, folding three or more
/// versions in canonical order. Conflict markers name the devices.
public struct TextMergePolicy: MergePolicy {
    /// How regions changed differently on both sides are settled.
    public enum Favor: String, Sendable, CaseIterable {
        /// A person decides (conflict markers).
        case none
        /// The current version's side wins the region.
        case current
        /// The other version's side wins the region.
        case other
        /// Both sides are kept, current first.
        case union
    }

    /// How conflicting regions are settled.
    public var favor: Favor

    /// Creates the policy.
    public init(favor: Favor = .none) {
        self.favor = favor
    }

    /// `text`, or `text-current`, `text-other`, `text-union` for the other ``favor`` values.
    public var name: String { favor == .none ? "text" : "text-\(favor.rawValue)" }

    /// Merges UTF-8 text line by line; needs a person for lines changed on both sides (with
    /// ``Favor/none``), binary content, a package, or a deletion racing an edit.
    public func merge(base: DocumentContent?, versions: [MergeVersion]) -> MergeOutcome {
        let versions = MergeInputs.canonical(versions)
        let baseData: Data?
        switch base {
        case nil: baseData = nil
        case let .file(data)?: baseData = data
        case .package?: return .needsPerson(reason: "the common ancestor is a package, not text", markedUp: nil)
        }
        if let baseData, !TextMergePolicy.isText(baseData) {
            return .needsPerson(reason: "the common ancestor is not UTF-8 text", markedUp: nil)
        }
        let (texts, refusal) = MergeInputs.texts(of: versions)
        if let refusal { return refusal }
        if let outcome = MergeInputs.trivialOutcome(base: base, versions: versions) { return outcome }
        if let deleted = versions.first(where: { $0.content == nil }) {
            return .needsPerson(
                reason: "\(deleted.deviceName) deleted the document while another device edited it",
                markedUp: MergeInputs.current(of: versions)?.content)
        }
        var merged = texts[0].1
        var label = texts[0].0.deviceName
        var clean = true
        for (version, data) in texts.dropFirst() {
            let favor: MergeFile.Favor =
                switch self.favor {
                case .none: .none
                case .current: version.isCurrent ? .theirs : .ours
                case .other: version.isCurrent ? .ours : .theirs
                case .union: .union
                }
            do {
                let result = try MergeFile.merge(
                    base: baseData, ours: merged, theirs: data,
                    labels: .init(base: "base", ours: label, theirs: version.deviceName), favor: favor)
                clean = clean && result.automergeable
                merged = result.content
            } catch {
                return .needsPerson(reason: "the text merge failed: \(error)", markedUp: nil)
            }
            label = version.deviceName
        }
        if clean { return .merged(.file(merged)) }
        return .needsPerson(reason: "both sides changed the same lines", markedUp: .file(merged))
    }

    /// True when `text` still holds a line that a text merge's conflict markers start or are
    /// (`<<<<<<< `, `=======`, `>>>>>>> `), whatever its line ends (LF or CRLF): a result that a
    /// person edited should not be saved with them unless they belong.
    public static func containsConflictMarkers(_ text: String) -> Bool {
        text.lines().contains { line in
            line.hasPrefix("<<<<<<< ") || line.hasPrefix(">>>>>>> ") || line == "=======" || line == "<<<<<<<" || line == ">>>>>>>"
        }
    }

    /// True when `data` is valid UTF-8 with no NUL byte.
    public static func isText(_ data: Data) -> Bool {
        data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            var combined: UInt8 = 0
            var hasNUL = false
            for byte in bytes {
                combined |= byte
                hasNUL = hasNUL || byte == 0
            }
            if hasNUL { return false }
            return combined < 0x80 || String(validating: bytes, as: UTF8.self) != nil
        }
    }
}
