public import FoundationEssentials

/// The content of one version of a document: the bytes of a file, or the files of a package.
public enum DocumentContent: Sendable, Hashable {
    /// A regular file's bytes.
    case file(Data)
    /// A package (a folder handled as one document): each file's path inside the package,
    /// slash-separated, mapped to its bytes.
    case package([String: Data])

    /// The bytes of a file; nil for a package.
    public var fileData: Data? {
        if case let .file(data) = self { return data }
        return nil
    }

    /// The size in bytes (for a package, the sum of its files).
    public var size: Int {
        switch self {
        case let .file(data): data.count
        case let .package(files): files.values.reduce(0) { $0 + $1.count }
        }
    }
}
