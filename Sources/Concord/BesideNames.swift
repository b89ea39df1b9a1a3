internal import FoundationEssentials
internal import GitStore
internal import Git
internal import GitFormat

/// The names of the documents a resolution saves beside another (``Resolution/keepBoth``): the
/// document's name with the saving device's in parentheses before the extension (`notes.md`
/// saved by Laptop: `notes (Laptop).md`; a package `trip.note`: `trip (Laptop).note`, still a
/// package), numbered when that name is taken (`notes (Laptop 2).md`). A name is taken when
/// `main` holds it or a twin of it (``History/existingTwin(of:in:)``), when the work tree holds
/// anything there, or when the same resolution chose it already.
struct BesideNames {
    private var chosen = Set<TreePath>()

    /// The first name free for a version of `document` saved by `device`.
    /// - Throws: ``ConcordError/failed(_:)`` when a thousand numbers are all taken.
    mutating func name(for document: DocumentPath, device: String, in tree: OID?, history: History, workTree: WorkTree) throws -> DocumentPath {
        let label = Self.label(device)
        for number in 1...1000 {
            guard let candidate = Self.compose(document, label: number == 1 ? label : "\(label) \(number)") else { continue }
            if chosen.contains(TreePath(candidate.value)) || workTree.kind(candidate.value) != .missing { continue }
            if try history.entry(candidate.value, in: tree) != nil || history.existingTwin(of: candidate, in: tree) != nil { continue }
            chosen.insert(TreePath(candidate.value))
            return candidate
        }
        throw ConcordError.failed("no free name beside '\(document)' for \(device)'s version")
    }

    /// `document`'s name with `label` in parentheses before its extension (a leading dot is
    /// part of the name, not an extension); nil when no valid path results, even with the label
    /// shortened.
    static func compose(_ document: DocumentPath, label: String) -> DocumentPath? {
        let name = document.name
        let folder = document.value.lastIndex(of: "/").map { document.value[...$0] } ?? ""
        var stem = Substring(name), ext = Substring("")
        if let dot = name.lastIndex(of: "."), dot != name.startIndex {
            stem = name[..<dot]
            ext = name[dot...]
        }
        var label = Substring(label)
        while !label.isEmpty {
            if let path = try? DocumentPath("\(folder)\(stem) (\(label))\(ext)") { return path }
            label = label.dropLast()
        }
        return nil
    }

    /// A device's name as a part of a file name: slashes and control characters replaced, spaces
    /// at the ends dropped; "another device" when nothing is left.
    static func label(_ device: String) -> String {
        let cleaned = String(String.UnicodeScalarView(device.unicodeScalars.map { $0 == "/" || $0.properties.generalCategory == .control ? "-" : $0 }))
        let trimmed = cleaned.trimmingSpaces()
        return trimmed.isEmpty ? "another device" : trimmed
    }
}
