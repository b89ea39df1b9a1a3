internal import GitFormat
internal import GitStore

extension GitError {
    /// The error a reader of git's formats threw, as the wrapper reports every problem with what
    /// a repository holds: a folder's problem as a tree error, anything
    /// else as damaged data (``isBadObject``), naming `file` when it came from one.
    init(_ error: FormatError, file: String? = nil) {
        switch error.format {
        case .tree:
            var message = error.message
            if message.hasPrefix("its ") {
                message = "a folder's " + message.dropFirst("its ".count)
            } else if message.hasPrefix("it ") {
                message = "a folder " + message.dropFirst("it ".count)
            }
            self.init(errorClass: .tree, message: message, function: "RawTree")
        default:
            let errorClass: GitError.Class = error.format == .zlib ? .zlib : .odb
            let message = file.map { "\($0) is damaged: \(error.description)" } ?? error.description
            self.init(errorClass: errorClass, message: message, function: error.format.rawValue)
        }
    }
}

/// Runs `body`, reporting a ``FormatError`` it throws as a ``GitError`` (about `file`, if any).
func readingFormat<T>(file: String? = nil, _ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as FormatError {
        throw GitError(error, file: file)
    }
}

extension GitError {
    /// An error of Concord's own object store, as the wrapper reports every problem with what a
    /// repository holds: a missing object as libgit2 reports one (``isNotFound``), one over a
    /// limit as ``isOverLimit``, damage as ``isBadObject``, a file system's refusal as class OS.
    init(_ error: StoreError) {
        switch error.kind {
        case .notFound:
            self.init(code: .notFound, errorClass: .odb, message: error.message, function: "object store")
        case .overLimit:
            self.init(code: .overLimit, errorClass: .odb, message: error.message, function: "object store")
        case .damaged:
            self.init(errorClass: .odb, message: error.message, function: "object store")
        case .malformedFolder:
            self.init(errorClass: .tree, message: error.message, function: "RawTree")
        case .refusedFolder:
            self.init(errorClass: .tree, message: error.message, function: "folder check")
        case .io:
            self.init(errorClass: .os, message: error.message, function: "object store")
        }
    }
}

/// Runs `body`, reporting a ``StoreError`` it throws as a ``GitError``: the one place where the
/// store's errors cross into the wrapper's.
func readingStore<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as StoreError {
        throw GitError(error)
    }
}
