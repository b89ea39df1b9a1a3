internal import FoundationEssentials
internal import Git
internal import GitFormat
internal import GitStore

/// The container's own limits, in `.concord/limits` (in the tree, so that every device agrees):
/// `file-size SIZE`, the largest file (a document, or a file of a package) the container takes.
/// A device saves up to it and accepts from the cloud what the arriving commits' limit allows,
/// up to ``ceiling``; a device's own setting (`CONCORD_MAX_OBJECT_SIZE`, `concord.maxObjectSize`)
/// overrides it on that device. `concord limits --file-size SIZE` sets it.
struct ContainerLimits: Equatable {
    /// The limit when the container names none.
    static let defaultFileSize = ArrivalCheck.Limits.defaultObjectSize
    /// The most a device accepts on the container's word alone: what a cloud can make a device
    /// read into memory without the device's own consent (its own setting goes past it).
    static let ceiling = 512 << 20
    /// The largest `.concord/limits` read: a few lines.
    static let largestFile = 4096

    /// The largest file, in bytes; nil when the file names none.
    var fileSize: Int?

    init(fileSize: Int?) {
        self.fileSize = fileSize
    }

    /// Reads `file-size SIZE` lines (the last wins) and `#` comments.
    /// - Throws: ``ConcordError/failed(_:)`` naming a malformed line.
    init(text: String) throws {
        for (number, line) in text.lines().enumerated() {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard let key = words.first, !key.hasPrefix("#") else { continue }
            guard key == "file-size", words.count == 2, let size = ArrivalCheck.Limits.parseSize(String(words[1])) else {
                throw ConcordError.failed("\(ContainerLayout.limits) line \(number + 1): expected 'file-size SIZE' (bytes, or a number with k, m or g)")
            }
            fileSize = size
        }
    }

    /// The file's text.
    var text: String { fileSize.map { "file-size \(ArrivalCheck.Limits.sizeText($0))\n" } ?? "" }

    /// The limit `commit`'s `.concord/limits` names; nil when it names none, or when the file is
    /// absent, larger than ``largestFile`` or malformed (a limit is only taken from a well-formed
    /// file).
    static func fileSize(at commit: OID?, in repository: Repository) -> Int? {
        guard let commit, let tree = try? repository.treeID(ofCommit: commit), let entry = try? repository.entry(at: ContainerLayout.limits, in: tree),
            entry.kind == .blob, let size = try? repository.blobSize(entry.id), size <= largestFile,
            let data = try? repository.blob(entry.id)
        else { return nil }
        return (try? ContainerLimits(text: String(decoding: data, as: UTF8.self)))?.fileSize
    }

    /// The limit of the device's `main` (``fileSize(at:in:)``).
    static func fileSize(inMainOf repository: Repository) -> Int? {
        fileSize(at: try? repository.resolve(ContainerLayout.main), in: repository)
    }
}
