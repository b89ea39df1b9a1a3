internal import FoundationEssentials
internal import GitFormat

/// What goes wrong reading or writing a repository's objects with Concord's own code: one
/// error for the whole store, whose kind says what a caller may do about it.
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of problem it is.
    public enum Kind: Sendable, Equatable {
        /// The object (or the file asked for) is not there.
        case notFound
        /// An object claims more bytes than the limit allows; refused before it was read.
        case overLimit
        /// What is stored is damaged or malformed (an index, a pack, an object).
        case damaged
        /// A folder's bytes are not a folder git would write (malformed, out of order, a name
        /// twice): said as "a folder …", for a caller to tell where it was found.
        case malformedFolder
        /// A folder refused where it was found (malformed, or nested too deep), told with the
        /// commit and the path it was found at.
        case refusedFolder
        /// The file system refused (a file cannot be written, a folder cannot be made).
        case io
    }

    /// What kind of problem it is.
    public let kind: Kind
    /// What is wrong, as one phrase.
    public let message: String

    /// An error of `kind`.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// A format's error, naming the file it came from when there is one.
    init(_ error: FormatError, file: String? = nil) {
        if error.format == .tree, !error.isOverLimit {
            kind = .malformedFolder
            var message = error.message
            if message.hasPrefix("its ") {
                message = "a folder's " + message.dropFirst("its ".count)
            } else if message.hasPrefix("it ") {
                message = "a folder " + message.dropFirst("it ".count)
            }
            self.message = message
            return
        }
        kind = error.isOverLimit ? .overLimit : .damaged
        message = file.map { "\($0) is damaged: \(error.description)" } ?? error.description
    }

    public var description: String { message }

    private static func described(_ bytes: Int) -> String {
        ByteCount.text(bytes)
    }

    /// "claims 3 GB, over the limit of 100 MB": the end of an over-limit message.
    static func overLimit(_ size: Int, _ limit: Int) -> String {
        "claims \(described(size)), over the limit of \(described(limit))"
    }
}

/// Runs `body`, reporting a ``FormatError`` it throws as a ``StoreError`` about `file`.
func readingFormat<T>(file: String? = nil, _ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as FormatError {
        throw StoreError(error, file: file)
    }
}
