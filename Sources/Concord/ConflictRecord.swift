internal import FoundationEssentials
internal import GitStore
internal import Git
internal import GitFormat

/// The record of one document in conflict, kept in the tree at `.concord/conflicts/<name>`:
/// the set of its unresolved versions other than the current one, one commit id a line.
///
/// Records travel with ordinary commits, so every device sees the state after its next
/// sync, and merge with three-way set semantics: a version added on either side is kept, a
/// version removed (resolved) on either side is removed.
struct ConflictRecord: Equatable {
    static let folder = ContainerLayout.conflicts

    var document: DocumentPath
    var versions: Set<OID>

    /// The tree path of the record of `document`: the path with `%` and `/` escaped, in one folder.
    static func path(of document: DocumentPath) -> String {
        "\(folder)/\(FileName.escape(document.value))"
    }

    /// The document a record file name stands for; nil when the name is not one Concord wrote.
    static func document(fromName name: String) -> DocumentPath? {
        guard let value = FileName.unescape(name) else { return nil }
        return try? DocumentPath(value)
    }

    init(document: DocumentPath, versions: Set<OID>) {
        self.document = document
        self.versions = versions
    }

    /// Parses a record's bytes; lines that are not commit ids (comments) are skipped.
    init(document: DocumentPath, data: Data) {
        self.document = document
        let text = String(decoding: data, as: UTF8.self)
        versions = Set(text.split(separator: "\n").compactMap { OID(hex: $0.trimmingSpaces()) })
    }

    /// The record's bytes: a comment naming the document, then the ids in order.
    var data: Data {
        var text = "# versions of \(document.value) in conflict with its current version\n"
        for id in versions.sorted() { text += "\(id.hex)\n" }
        return Data(text.utf8)
    }

    /// Three-way set merge of version sets.
    static func merge(base: Set<OID>, local: Set<OID>, remote: Set<OID>) -> Set<OID> {
        let added = local.subtracting(base).union(remote.subtracting(base))
        let kept = base.intersection(local).intersection(remote)
        return kept.union(added)
    }
}
