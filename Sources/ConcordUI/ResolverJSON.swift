internal import Concord
internal import ConcordMerge
internal import Foundation

/// `/api/session`: what the page needs before it writes.
struct SessionJSON: Encodable {
    var csrf: String
    var device: String
    var root: String
}

/// `/api/documents`, written by ``JSONText``: through `JSONEncoder`, the list of 100,000
/// documents spent more time encoding than listing.
struct ListJSON {
    var device: String
    var conflicts: Int
    /// The documents in conflict, listed first.
    var inConflict: [DocumentJSON]
    var others: [DocumentJSON]

    /// The JSON object `{"conflicts":…,"device":…,"documents":[{"package":…,"path":…,"state":…,"versions":…},…]}`,
    /// `versions` only for a document in conflict.
    var encoded: [UInt8] {
        var text = JSONText(reservingCapacity: 64 + (inConflict.count + others.count) * 72)
        text.raw(#"{"conflicts":"#)
        text.number(conflicts)
        text.raw(#","device":"#)
        text.string(device)
        text.raw(#","documents":["#)
        var first = true
        for document in [inConflict, others].joined() {
            text.raw(first ? #"{"package":"# : #",{"package":"#)
            first = false
            text.bool(document.package)
            text.raw(#","path":"#)
            text.string(document.path)
            text.raw(#","state":"#)
            text.string(document.state)
            if let versions = document.versions {
                text.raw(#","versions":"#)
                text.number(versions)
            }
            text.raw("}")
        }
        text.raw("]}")
        return text.bytes
    }
}

/// A document in the list; `versions` (in contention) only for one in conflict.
struct DocumentJSON {
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

/// One line shown in a history entry: its text and what it is against the version before.
struct LineJSON: Encodable {
    /// `context`, `added` or `removed`.
    var kind: String
    var text: String
}

/// A version (or the ancestor) as a column of the conflict view. A version's lines are not sent
/// whole: its changes against the ancestor's lines are (`changes`), from which the page builds the
/// column, so a view costs the ancestor's size once, not once per version.
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
    /// True when the content is not UTF-8 text (shown by size and id only, or as an image).
    var binary: Bool
    /// True when it is an image the page can show (PNG, JPEG, GIF, WebP: `/api/image`).
    var image: Bool
    /// The git id of the content (a blob, or a package's tree); nil for a deletion.
    var contentID: String?
    /// The files of a package.
    var files: [String]?
    /// For a package version, each file that differs from the ancestor's package, and how.
    var fileChanges: [FileChangeJSON]?
    /// Its changes against the ancestor's lines; nil when there is no line comparison.
    var changes: [TextRegions.Change]?
    /// The whole text, only for a text that cannot be compared with the ancestor by line (a binary ancestor).
    var text: String?
    var added: Int
    var removed: Int

    init(_ version: DocumentVersion, content: DocumentContent?, changes: [TextRegions.Change]?, ancestor: DocumentContent? = nil) {
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
        image = false
        self.changes = changes
        added = changes?.reduce(0) { $0 + $1.lines.count } ?? 0
        removed = changes?.reduce(0) { $0 + $1.end - $1.start } ?? 0
        switch content {
        case let .package(contents)?:
            files = contents.keys.sorted()
            if case let .package(before)? = ancestor {
                fileChanges = FileChangeJSON.changes(from: before, to: contents)
            } else if ancestor == nil || ancestor?.fileData != nil {
                fileChanges = FileChangeJSON.changes(from: [:], to: contents)
            }
        case let .file(data)?:
            if !TextMergePolicy.isText(data) {
                binary = true
                image = ImageType(data) != nil
            } else if changes == nil {
                text = String(decoding: data, as: UTF8.self)
            }
        case nil:
            break
        }
    }
}

/// A policy's outcome, without its content (the page asks `/api/preview` for that when needed).
struct PreviewJSON: Encodable {
    var policy: String
    var merged: Bool
    /// Why a person is needed, when one is.
    var reason: String?
    var note: String?
    /// True when the outcome has a text to edit from (a merge or a marked-up merge of text).
    var hasText: Bool
    var deleted: Bool

    init(_ preview: Contention.Preview) {
        policy = preview.policy
        merged = preview.isMerged
        note = preview.note
        if case let .needsPerson(why, _) = preview.outcome { reason = why }
        deleted = preview.isMerged && preview.content == nil
        hasText = Self.text(of: preview) != nil
    }

    /// The preview's text, when it has one.
    static func text(of preview: Contention.Preview) -> String? {
        preview.content?.fileData.flatMap { TextMergePolicy.isText($0) ? String(decoding: $0, as: UTF8.self) : nil }
    }
}

/// `/api/conflict`: the conflict view.
struct ConflictJSON: Encodable {
    var document: String
    var ancestor: SideJSON?
    /// The ancestor's lines, each with its line break (empty when there is no ancestor); nil when
    /// the versions cannot be compared by line (one is not text).
    var base: [String]?
    var versions: [SideJSON]
    var previews: [PreviewJSON]
    var selected: PreviewJSON
    /// The `.concord/policies` line that selects the policy (`line 2: *.txt text-union`); nil: the defaults.
    var rule: String?
    /// What the editable result starts from: the selected policy's merge (or marked-up merge),
    /// else the current version's text.
    var start: String?
    /// The changed regions to pick from hunk by hunk (the lines between them are the ancestor's).
    var regions: [RegionJSON]?

    init(_ contention: Contention) {
        document = contention.document.value
        let base = contention.ancestor?.content
        let texts = contention.versions.compactMap { $0.content?.fileData }
        let baseData = base == nil ? Data() : base?.fileData
        var cut: TextRegions?
        if texts.count == contention.versions.count, let baseData {
            cut = try? TextRegions(base: baseData, versions: texts)
        }
        self.base = cut?.baseLines
        ancestor = contention.ancestor.map { SideJSON($0.version, content: $0.content, changes: cut == nil ? nil : []) }
        versions = contention.versions.enumerated().map { index, version in
            SideJSON(version.version, content: version.content, changes: cut?.changes[index], ancestor: base)
        }
        previews = contention.previews.map(PreviewJSON.init)
        selected = PreviewJSON(contention.selected)
        rule = contention.selectingRule.map { "line \($0.line): \($0.text)" }
        let current = contention.versions.first?.content?.fileData.flatMap { TextMergePolicy.isText($0) ? String(decoding: $0, as: UTF8.self) : nil }
        start = PreviewJSON.text(of: contention.selected) ?? current
        if let cut {
            var line = 0
            var changed: [RegionJSON] = []
            for region in cut.regions {
                if region.isChanged { changed.append(RegionJSON(region, start: line)) }
                line += region.base.count
            }
            regions = changed
        }
    }
}

/// A changed region of the hunk picker: the ancestor's lines `start..<end` (from 0), each
/// version's lines for it, which versions changed it, and the pick it starts with (the one
/// version that changed it, or the ancestor when several changed it differently).
struct RegionJSON: Encodable {
    var start: Int
    var end: Int
    var versions: [[String]]
    var changedBy: [Int]
    var pick: [Int]

    init(_ region: TextRegions.Region, start: Int) {
        self.start = start
        end = start + region.base.count
        versions = region.versions
        changedBy = region.changedBy
        let distinct = Set(region.changedBy.map { region.versions[$0] })
        pick = distinct.count == 1 ? [region.changedBy[0]] : []
    }
}

/// `/api/preview`: one policy's text.
struct PreviewTextJSON: Encodable {
    var policy: String
    var text: String?
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

/// `/api/deleted`'s answer: the documents deleted recently, the latest first.
struct DeletedListJSON: Encodable {
    var deleted: [DeletedJSON]
}

/// A deleted document: who deleted it and when, the deletion's version, and the version whose
/// content a restore saves again.
struct DeletedJSON: Encodable {
    var document: String
    var device: String
    var modified: Date
    var version: String
    var lastVersion: String
}

/// `/api/undo`'s request: the document whose last resolution to undo.
struct UndoRequestJSON: Decodable {
    var document: String
}

/// `/api/restore`'s answer.
struct RestoredJSON: Encodable {
    var document: String
    /// The new version; nil when the content was the current one already.
    var version: String?
}

/// `/api/bulk`'s body: which conflicts (a glob on the path or the name), how, and whether only to preview.
struct BulkRequestJSON: Decodable {
    var pattern: String
    /// `latest`, `chosen` (each one's policy from `.concord/policies`) or `policy`.
    var action: String
    var policy: String?
    var dryRun: Bool
}

/// What a bulk resolution does (or would do) to one document.
struct BulkReportJSON: Encodable {
    var document: String
    var explanation: String
    var policy: String?
    /// The device whose version is kept, when one is.
    var kept: String?
    /// The devices whose versions are removed from the document's versions (they stay in its history).
    var removed: [String]
    var deleted: Bool
    var version: String?

    init(_ report: ResolveReport) {
        document = report.document.value
        explanation = report.explanation
        policy = report.policy
        kept = report.kept?.deviceName
        removed = report.removed.map(\.deviceName)
        deleted = report.isDeletion
        version = report.version
    }
}

/// One file of a package version against the ancestor's package: added, removed or changed, with
/// the lines it added and removed when both sides are text.
struct FileChangeJSON: Encodable {
    var path: String
    /// `added`, `removed` or `changed`.
    var change: String
    var added: Int?
    var removed: Int?
    /// A changed text file's differences, as hunks (nil for binary content, or past
    /// ``largestShown`` lines of them: the counts still say how much changed).
    var hunks: [TextDiff.Hunk]?

    /// The most lines of hunks shown for one file of a package.
    static let largestShown = 400

    static func changes(from before: [String: Data], to after: [String: Data]) -> [FileChangeJSON] {
        Set(before.keys).union(after.keys).sorted().compactMap { path in
            switch (before[path], after[path]) {
            case (nil, _?): return FileChangeJSON(path: path, change: "added")
            case (_?, nil): return FileChangeJSON(path: path, change: "removed")
            case let (old?, new?) where old != new:
                let diff = try? TextDiff(old: old, new: new)
                let shown = diff.flatMap { $0.hunks.reduce(0) { $0 + $1.lines.count } <= largestShown ? $0.hunks : nil }
                return FileChangeJSON(path: path, change: "changed", added: diff?.addedCount, removed: diff?.removedCount, hunks: shown)
            default: return nil
            }
        }
    }
}
