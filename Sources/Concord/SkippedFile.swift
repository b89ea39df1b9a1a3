/// An entry of the work tree that is not saved, and why (as ``Container/status()`` lists them).
public struct SkippedFile: Sendable, Hashable {
    /// Why an entry is not saved.
    ///
    /// Ignore rules (`.concordignore`, built-in editor and system files) and names that clash
    /// with another document's add their own reasons here, with what decides them (the rule, the
    /// other name) in ``SkippedFile/detail``.
    public enum Reason: String, Sendable, Hashable, CaseIterable {
        /// A file larger than the limit devices accept for one file.
        case overLimit
        /// A symbolic link: links are never followed.
        case symbolicLink
        /// Neither a regular file nor a folder (a FIFO, a socket, a device).
        case notARegularFile
        /// A name no document may have (not UTF-8, a control character, a name git reserves).
        case invalidName
    }

    /// The entry's path relative to the container root.
    public var path: String
    /// Why it is not saved.
    public var reason: Reason
    /// The reason in words, one line (for ``Reason/overLimit``: the size, the limit, and what
    /// raises it).
    public var detail: String

    /// Makes an entry.
    public init(path: String, reason: Reason, detail: String) {
        self.path = path
        self.reason = reason
        self.detail = detail
    }
}
