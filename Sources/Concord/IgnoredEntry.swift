/// A work-tree entry that Concord does not save, and why: an ignore rule matches it, it is over
/// the size limit, or it is something no document can be (a symbolic link, an empty folder, a
/// name no device may write, a device file).
public struct IgnoredEntry: Sendable, Hashable {
    /// Why an entry is not saved.
    public enum Reason: Sendable, Hashable, CustomStringConvertible {
        /// An ignore rule matches it (or a folder it is in: nothing below is looked at).
        case rule(IgnoreRule)
        /// The file is larger than the limit for one file (`size` and `limit` in bytes).
        case overSizeLimit(size: Int, limit: Int)
        /// A symbolic link: links are never followed, nor saved.
        case symbolicLink
        /// A folder with nothing in it: folders exist in a container only through their files.
        case emptyFolder
        /// A name that cannot be a document's (not UTF-8, a control character, …).
        case invalidName(String)
        /// Neither a regular file nor a folder (a FIFO, a socket, a device).
        case notRegularFile

        /// The reason as one line for a person.
        public var description: String {
            switch self {
            case let .rule(rule): rule.description
            case let .overSizeLimit(size, limit):
                "\(ArrivalCheck.format(size)), over the limit of \(ArrivalCheck.format(limit)) for one file ('concord limits --file-size SIZE' raises the container's; CONCORD_MAX_OBJECT_SIZE or concord.maxObjectSize set a device's own)"
            case .symbolicLink: "a symbolic link: links are never followed nor synced"
            case .emptyFolder: "an empty folder: a folder is synced only with the files in it"
            case let .invalidName(reason): "not a valid document name: \(reason)"
            case .notRegularFile: "not a regular file"
            }
        }
    }

    /// The entry's path from the container root.
    public var path: String
    /// True when the entry is a folder (everything in it is left out too).
    public var isFolder: Bool
    /// True when `main` holds a document at this path (or below this folder): it keeps its
    /// versions, and its edits here are not saved.
    public var isDocument: Bool
    /// Why it is not saved.
    public var reason: Reason
}
