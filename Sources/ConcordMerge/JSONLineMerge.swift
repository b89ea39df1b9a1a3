import FoundationEssentials

/// Git's line merge of JSON versions, and whether it can stand in for the structural merge.
///
/// It can when it merged cleanly into valid JSON (no duplicate member names) that keeps every
/// change of every version: merging any version into it again, structurally, changes nothing and
/// finds no conflict. That is the rule that keeps the JSON policy from ever needing a person where
/// git's line merge is clean and right.
struct JSONLineMerge {
    /// The line merge's bytes and value, when it merged cleanly into valid JSON.
    let parsed: (bytes: Data, value: JSONValue)?
    /// The line merge's bytes, when they also keep every change of every version.
    let keepingEveryChange: Data?

    /// Runs git's line merge of `versions` against `base`; `values` are the parsed versions and
    /// `baseValue` the parsed ancestor.
    init(base: DocumentContent?, baseValue: JSONValue?, versions: [MergeVersion], values: [JSONValue], idKeys: [String]) {
        guard case let .merged(.file(bytes)?) = TextMergePolicy().merge(base: base, versions: versions),
            let value = try? JSONValue(parsing: bytes)
        else {
            parsed = nil
            keepingEveryChange = nil
            return
        }
        parsed = (bytes, value)
        let merger = JSONMerger(idKeys: idKeys, latestSide: nil, oursFirst: true)
        let keepsAll = values.allSatisfy { version in
            let (again, conflicts) = merger.merge(base: baseValue, ours: value, theirs: version)
            return conflicts.isEmpty && again == value
        }
        keepingEveryChange = keepsAll ? bytes : nil
    }
}
