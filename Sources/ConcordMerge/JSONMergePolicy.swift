import FoundationEssentials
internal import Git

/// A structural three-way merge of JSON documents.
///
/// Objects merge member by member, recursively, so changes to different members never conflict.
/// Arrays whose elements are all objects carrying an id (the first of ``idKeys``, then `id`,
/// `_id` and `uuid`, holding a string or number, unique in each array) merge element by element
/// (in the current version's order, an element another version added after the one before it);
/// other arrays merge when both sides only inserted elements, appending included (where both
/// inserted at the same place: in sorted order when both arrays are sorted strings, else the
/// earlier version's first; an element both inserted there once), and otherwise count as one
/// value. A member or element changed
/// on both sides to different values needs a person, or, with ``settlesConflictsByLatest``, takes
/// the value of the latest version.
///
/// When git's line merge of the texts merges cleanly into the same JSON value, its bytes are the
/// result, so that layout changes made on one side are kept as people would see them merged.
/// Otherwise the output keeps the current version's member order (members another version added
/// go to their sorted place when both sides keep their members sorted, else after the member
/// before them) and its layout: indentation (spaces, tabs or none), spacing, line breaks, the
/// bytes around the value; where only another version changed the layout from the ancestor's,
/// that version's. Unchanged parts are copied byte for byte. Three or more versions merge by
/// folding the others into the current version: first those before it in canonical order,
/// nearest first, then those after it, so that elements appended by several versions come out
/// in canonical order.
///
/// When it needs a person, the marked-up content is the merged document with git-style conflict
/// markers around each conflicting member or element (one side's lines, then the other's), every
/// change that did merge already applied; for a document on one line, git's line merge of the
/// texts; when a version is not valid JSON, git's line merge of the texts if they are UTF-8 text.
/// A deletion racing an edit needs a person, with the current version as the marked-up content.
public struct JSONMergePolicy: MergePolicy {
    /// The member names tried first, before `id`, `_id` and `uuid`, to identify array elements.
    public var idKeys: [String]
    /// True to settle each conflicting member by latest-wins instead of asking a person.
    public var settlesConflictsByLatest: Bool

    /// Creates the policy.
    /// - Parameters:
    ///   - settlesConflictsByLatest: settle each conflicting member by latest-wins ("json-latest").
    ///   - idKeys: member names that identify array elements, tried before `id`, `_id`, `uuid`.
    public init(settlesConflictsByLatest: Bool = false, idKeys: [String] = []) {
        self.settlesConflictsByLatest = settlesConflictsByLatest
        self.idKeys = idKeys
    }

    /// `json`, or `json-latest` when ``settlesConflictsByLatest`` is true.
    public var name: String { settlesConflictsByLatest ? "json-latest" : "json" }

    private var allIDKeys: [String] {
        var keys = idKeys
        for key in ["id", "_id", "uuid"] where !keys.contains(key) { keys.append(key) }
        return keys
    }

    private struct Parsed {
        var version: MergeVersion
        var source: JSONWriter.Source
        var style: JSONStyle
    }

    /// Merges the versions as JSON, member by member and element by element (see ``JSONMergePolicy``).
    public func merge(base: DocumentContent?, versions: [MergeVersion]) -> MergeOutcome {
        decide(base: base, versions: versions).outcome
    }

    /// The merge of ``merge(base:versions:)``, with a note when git's line merge was taken over
    /// a structural merge that needed a person.
    public func decide(base: DocumentContent?, versions: [MergeVersion]) -> MergeDecision {
        let versions = MergeInputs.canonical(versions)
        var baseSource: JSONWriter.Source?
        switch base {
        case nil: break
        case .package?: return MergeDecision(outcome: .needsPerson(reason: "the common ancestor is a package, not JSON", markedUp: nil))
        case let .file(data)?:
            switch parse(data, owner: "the common ancestor") {
            case let .success(source): baseSource = source
            case let .failure(problem): return MergeDecision(outcome: needsPerson(problem.reason, base: base, versions: versions))
            }
        }
        var parsed: [Parsed] = []
        for version in versions {
            switch version.content {
            case nil: continue
            case .package?:
                return MergeDecision(outcome: .needsPerson(reason: "\(version.deviceName)'s version is a package, not JSON", markedUp: nil))
            case let .file(data)?:
                switch parse(data, owner: "\(version.deviceName)'s version") {
                case let .success(source):
                    parsed.append(Parsed(version: version, source: source, style: JSONStyle(detectingIn: source.bytes)))
                case let .failure(problem): return MergeDecision(outcome: needsPerson(problem.reason, base: base, versions: versions))
                }
            }
        }
        if let outcome = MergeInputs.trivialOutcome(base: base, versions: versions) { return MergeDecision(outcome: outcome) }
        guard let current = MergeInputs.current(of: versions) else { return MergeDecision(outcome: .merged(base)) }
        if let deleted = versions.first(where: { $0.content == nil }) {
            let editor = versions.first { $0.content != nil }?.deviceName ?? "another device"
            return MergeDecision(
                outcome: .needsPerson(
                    reason: "\(deleted.deviceName) deleted the document while \(editor) changed it",
                    markedUp: current.content))
        }
        guard let currentIndex = parsed.firstIndex(where: { $0.version == current }) else { return MergeDecision(outcome: .merged(base)) }
        let lineMerge = JSONLineMerge(
            base: base, baseValue: baseSource?.syntax.value, versions: versions,
            values: parsed.map(\.source.syntax.value), idKeys: allIDKeys)
        let first = parsed[currentIndex]
        var merged = first.source.syntax.value
        var latestFolded = currentIndex
        let foldOrder = Array(parsed.indices.prefix(currentIndex).reversed()) + Array(parsed.indices.suffix(from: currentIndex + 1))
        for index in foldOrder {
            let other = parsed[index]
            let merger = JSONMerger(
                idKeys: allIDKeys,
                latestSide: settlesConflictsByLatest ? (index > latestFolded ? .theirs : .ours) : nil,
                oursFirst: currentIndex < index)
            let (value, conflicts) = merger.merge(base: baseSource?.syntax.value, ours: merged, theirs: other.source.syntax.value)
            latestFolded = max(latestFolded, index)
            if !conflicts.isEmpty {
                let paths = JSONMergePolicy.describe(conflicts)
                if let lines = lineMerge.keepingEveryChange {
                    return MergeDecision(
                        outcome: .merged(.file(lines)),
                        note: """
                            taken from git's line merge, which merged cleanly into valid JSON that keeps every change \
                            of every version (member by member, both sides changed \(paths))
                            """)
                }
                return MergeDecision(
                    outcome: needsPerson(
                        reason: "both sides changed \(paths) to different values", value: value ?? merged, conflicts: conflicts,
                        oursLabel: first.version.deviceName, other: other, parsed: parsed, currentIndex: currentIndex,
                        base: base, baseSource: baseSource))
            }
            merged = value ?? merged
        }
        let output = write(merged, parsed: parsed, currentIndex: currentIndex, base: baseSource, conflicts: [:], labels: ("", ""))
        guard (try? JSONParser.parse(output)) != nil else {
            return MergeDecision(outcome: .needsPerson(reason: "the merged JSON did not parse (a bug in Concord)", markedUp: current.content))
        }
        if let (lines, value) = lineMerge.parsed, value == merged {
            return MergeDecision(outcome: .merged(.file(lines)))
        }
        return MergeDecision(outcome: .merged(.file(Data(output))))
    }

    /// The conflicting paths for a reason: the first five, then how many more.
    private static func describe(_ conflicts: [JSONMerger.Conflict]) -> String {
        let paths = conflicts.map(\.path.description)
        var text = paths.prefix(5).joined(separator: ", ")
        if paths.count > 5 { text += " and \(paths.count - 5) more" }
        return text
    }

    private struct Problem: Error {
        var reason: String
    }

    private func parse(_ data: Data, owner: String) -> Result<JSONWriter.Source, Problem> {
        guard TextMergePolicy.isText(data) else {
            return .failure(Problem(reason: "\(owner) is binary, not JSON text"))
        }
        let bytes = Array(data)
        do {
            return .success(JSONWriter.Source(bytes: bytes, syntax: try JSONParser.parse(bytes)))
        } catch {
            return .failure(Problem(reason: "\(owner) is not valid JSON: \(error)"))
        }
    }

    /// The merged value written like the current version (like another version when only that
    /// one changed the layout): its bytes before and after the value, its indentation and
    /// spacing, and the unchanged parts copied from every version laid out the same way.
    private func write(
        _ value: JSONValue, parsed: [Parsed], currentIndex: Int, base: JSONWriter.Source?,
        conflicts: [JSONPath: JSONWriter.Conflict], labels: (String, String)
    ) -> [UInt8] {
        let others = parsed.indices.filter { $0 != currentIndex }.map { parsed[$0] }
        let ordered = [parsed[currentIndex]] + others
        let baseStyle = base.map { JSONStyle(detectingIn: $0.bytes) }
        let primary = JSONMergePolicy.changed(from: baseStyle, in: ordered.map(\.style)).map { ordered[$0] } ?? ordered[0]
        let sources = ordered.filter { $0.style == primary.style }.map(\.source)
        func prefix(_ source: JSONWriter.Source) -> ArraySlice<UInt8> { source.bytes[..<source.syntax.range.lowerBound] }
        func suffix(_ source: JSONWriter.Source) -> ArraySlice<UInt8> { source.bytes[source.syntax.range.upperBound...] }
        let prefixIndex = JSONMergePolicy.changed(from: base.map(prefix), in: ordered.map { prefix($0.source) }) ?? 0
        let suffixIndex = JSONMergePolicy.changed(from: base.map(suffix), in: ordered.map { suffix($0.source) }) ?? 0
        var writer = JSONWriter(style: primary.style)
        writer.idKeys = allIDKeys
        writer.conflicts = conflicts
        writer.oursLabel = labels.0
        writer.theirsLabel = labels.1
        writer.write(value, sources: sources, base: baseStyle == primary.style ? base : nil)
        return Array(prefix(ordered[prefixIndex].source)) + writer.output + Array(suffix(ordered[suffixIndex].source))
    }

    /// The index of the first item that differs from `base`; nil when none does or there is no base.
    private static func changed<T: Equatable>(from base: T?, in items: [T]) -> Int? {
        guard let base else { return nil }
        return items.firstIndex { $0 != base }
    }

    private func needsPerson(
        reason: String, value: JSONValue, conflicts: [JSONMerger.Conflict], oursLabel: String,
        other: Parsed, parsed: [Parsed], currentIndex: Int, base: DocumentContent?, baseSource: JSONWriter.Source?
    ) -> MergeOutcome {
        let current = parsed[currentIndex]
        let labels = (oursLabel, other.version.deviceName)
        if conflicts.contains(where: { $0.path.components.isEmpty }) || current.style.indent == nil {
            return .needsPerson(
                reason: reason,
                markedUp: textMarkup(
                    base: base, ours: current.source.bytes, theirs: other.source.bytes, labels: labels))
        }
        var table: [JSONPath: JSONWriter.Conflict] = [:]
        for conflict in conflicts { table[conflict.path] = JSONWriter.Conflict(ours: conflict.ours, theirs: conflict.theirs) }
        let marked = write(value, parsed: parsed, currentIndex: currentIndex, base: baseSource, conflicts: table, labels: labels)
        return .needsPerson(reason: reason, markedUp: .file(Data(marked)))
    }

    private func needsPerson(_ reason: String, base: DocumentContent?, versions: [MergeVersion]) -> MergeOutcome {
        guard let current = MergeInputs.current(of: versions) else { return .needsPerson(reason: reason, markedUp: nil) }
        guard let other = versions.last(where: { $0 != current }),
            case let .file(ours)? = current.content, case let .file(theirs)? = other.content
        else {
            return .needsPerson(reason: reason, markedUp: current.content)
        }
        return .needsPerson(
            reason: reason,
            markedUp: textMarkup(
                base: base, ours: Array(ours), theirs: Array(theirs), labels: (current.deviceName, other.deviceName)))
    }

    /// Git's line merge of two texts, or the current text when either is not UTF-8 text.
    private func textMarkup(base: DocumentContent?, ours: [UInt8], theirs: [UInt8], labels: (String, String)) -> DocumentContent {
        let baseData = base?.fileData
        let texts = [Data(ours), Data(theirs)] + (baseData.map { [$0] } ?? [])
        guard texts.allSatisfy(TextMergePolicy.isText),
            let result = try? MergeFile.merge(
                base: baseData, ours: Data(ours), theirs: Data(theirs),
                labels: .init(base: "base", ours: labels.0, theirs: labels.1))
        else {
            return .file(Data(ours))
        }
        return .file(result.content)
    }
}
