internal import Concord
internal import ConcordMerge
internal import Foundation

/// `/api/session`: what the page needs before it writes.
struct SessionJSON: Encodable {
    var csrf: String
    var device: String
    var root: String
}

/// `/api/documents`.
struct ListJSON: Encodable {
    var device: String
    var conflicts: Int
    var documents: [DocumentJSON]
}

/// A document in the list; `versions` (in contention) only for one in conflict.
struct DocumentJSON: Encodable {
    var path: String
    var state: String
    var package: Bool
    var versions: Int?
}

/// `/api/resolve`'s body.
struct ResolveRequestJSON: Decodable {
    var document: String
    /// `keep`, `latest`, `keepBoth`, `policy` or `content`.
    var action: String
    var version: String?
    var policy: String?
    var content: String?
    var allowMarkers: Bool?
}

/// `/api/resolve`'s answer.
struct ResolvedJSON: Encodable {
    var document: String
    var explanation: String
    var version: String?
}

/// One line shown in a column: its text and what it is against the ancestor.
struct LineJSON: Encodable {
    /// `context`, `added` or `removed` (a line of the ancestor this version does not have).
    var kind: String
    var text: String
}

/// A version (or the ancestor) as a column of the conflict view.
struct SideJSON: Encodable {
    var id: String
    var short: String
    var device: String
    var modified: Date
    var clock: String
    var size: Int
    var current: Bool
    var deleted: Bool
    var package: Bool
    /// True when the content is not UTF-8 text (shown by size and hash only).
    var binary: Bool
    /// The files of a package.
    var files: [String]?
    /// The git id of the content (a blob, or a package's tree); nil for a deletion.
    var contentID: String?
    /// The whole text; nil when there is none (deleted, binary, a package).
    var text: String?
    /// The lines, marked against the ancestor (the ancestor's own: all context); nil when there is no text.
    var lines: [LineJSON]?
    var added: Int
    var removed: Int

    init(_ version: DocumentVersion, content: DocumentContent?, ancestor: DocumentContent?) {
        id = version.id
        short = String(version.id.prefix(7))
        device = version.deviceName
        modified = version.modified
        clock = version.clock.description
        size = version.size
        current = version.isCurrent
        deleted = version.isDeleted
        package = version.isPackage
        contentID = version.contentID
        binary = false
        added = 0
        removed = 0
        switch content {
        case let .package(contents)?:
            files = contents.keys.sorted()
        case let .file(data)?:
            guard TextMergePolicy.isText(data) else {
                binary = true
                return
            }
            text = String(decoding: data, as: UTF8.self)
            let base = ancestor?.fileData.flatMap { TextMergePolicy.isText($0) ? $0 : nil } ?? Data()
            guard let diff = try? TextDiff(old: base, new: data, context: .max) else { return }
            if diff.isEmpty {
                lines = Self.split(data).map { LineJSON(kind: "context", text: $0) }
            } else {
                lines = diff.hunks.flatMap(\.lines).map { LineJSON(kind: $0.kind.rawValue, text: $0.text) }
                added = diff.addedCount
                removed = diff.removedCount
            }
        case nil:
            break
        }
    }

    static func split(_ data: Data) -> [String] {
        var lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }
}

/// A policy's preview.
struct PreviewJSON: Encodable {
    var policy: String
    var merged: Bool
    /// Why a person is needed, when one is.
    var reason: String?
    var note: String?
    /// The merged (or marked-up) text; nil for a deletion, binary content or a package.
    var text: String?
    var deleted: Bool

    init(_ preview: Contention.Preview) {
        policy = preview.policy
        merged = preview.isMerged
        note = preview.note
        if case let .needsPerson(why, _) = preview.outcome { reason = why }
        deleted = preview.isMerged && preview.content == nil
        text = preview.content?.fileData.flatMap { TextMergePolicy.isText($0) ? String(decoding: $0, as: UTF8.self) : nil }
    }
}

/// `/api/conflict`: the conflict view.
struct ConflictJSON: Encodable {
    var document: String
    var ancestor: SideJSON?
    var versions: [SideJSON]
    var previews: [PreviewJSON]
    var selected: PreviewJSON
    /// The `.concord/policies` line that selects the policy (`line 2: *.txt text-union`); nil: the defaults.
    var rule: String?
    /// What the editable result starts from: the selected policy's merge (or marked-up merge),
    /// else the current version's text.
    var start: String?
    /// The text cut into regions to pick from hunk by hunk; nil unless the ancestor (or its
    /// absence) and every version are text.
    var regions: [RegionJSON]?

    init(_ contention: Contention) {
        document = contention.document.value
        let base = contention.ancestor?.content
        ancestor = contention.ancestor.map { SideJSON($0.version, content: $0.content, ancestor: $0.content) }
        versions = contention.versions.map { SideJSON($0.version, content: $0.content, ancestor: base) }
        previews = contention.previews.map(PreviewJSON.init)
        selected = PreviewJSON(contention.selected)
        rule = contention.selectingRule.map { "line \($0.line): \($0.text)" }
        let current = contention.versions.first?.content?.fileData.flatMap { TextMergePolicy.isText($0) ? String(decoding: $0, as: UTF8.self) : nil }
        start = selected.text ?? current
        let texts = contention.versions.compactMap { $0.content?.fileData }
        let baseData = base == nil ? Data() : base?.fileData
        if texts.count == contention.versions.count, let baseData, let cut = try? TextRegions(base: baseData, versions: texts) {
            regions = cut.regions.map(RegionJSON.init)
        }
    }
}

/// `/api/history`: the newest versions, each with its changes against the one before.
struct HistoryJSON: Encodable {
    var document: String
    /// How many versions the document has (the list holds the newest, up to a limit).
    var total: Int
    var versions: [HistoryEntryJSON]
}

/// One version of a history.
struct HistoryEntryJSON: Encodable {
    var id: String
    var short: String
    var device: String
    var modified: Date
    var clock: String
    var size: Int
    var current: Bool
    var conflict: Bool
    var deleted: Bool
    var resolves: Int
    /// The lines it changed against the version before it, with three lines of context; nil
    /// when either is not text.
    var changes: [LineJSON]?
    var added: Int
    var removed: Int

    init(_ version: DocumentVersion, content: DocumentContent?, before: DocumentContent?) {
        id = version.id
        short = String(version.id.prefix(7))
        device = version.deviceName
        modified = version.modified
        clock = version.clock.description
        size = version.size
        current = version.isCurrent
        conflict = version.isConflict
        deleted = version.isDeleted
        resolves = version.resolves.count
        added = 0
        removed = 0
        let new = content?.fileData ?? (content == nil ? Data() : nil)
        let old = before?.fileData ?? (before == nil ? Data() : nil)
        if let new, let old, let diff = try? TextDiff(old: old, new: new) {
            changes = diff.hunks.flatMap(\.lines).map { LineJSON(kind: $0.kind.rawValue, text: $0.text) }
            added = diff.addedCount
            removed = diff.removedCount
        }
    }
}

/// `/api/restore`'s body.
struct RestoreRequestJSON: Decodable {
    var document: String
    var version: String
}

/// `/api/restore`'s answer.
struct RestoredJSON: Encodable {
    var document: String
    /// The new version; nil when the content was the current one already.
    var version: String?
}

/// A region of the hunk picker: the ancestor's lines, each version's, which versions changed
/// it, and the pick it starts with (the one version that changed it, or the ancestor when
/// several changed it differently).
struct RegionJSON: Encodable {
    var base: [String]
    var versions: [[String]]
    var changed: Bool
    var changedBy: [Int]
    var pick: [Int]

    init(_ region: TextRegions.Region) {
        base = region.base
        versions = region.versions
        changed = region.isChanged
        changedBy = region.changedBy
        let distinct = Set(region.changedBy.map { region.versions[$0] })
        pick = distinct.count == 1 ? [region.changedBy[0]] : []
    }
}
