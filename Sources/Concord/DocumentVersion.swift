public import FoundationEssentials
public import ConcordMerge

/// One version of a document (the NSFileVersion role): a commit in which the document's
/// content changed, or that resolved its conflict.
public struct DocumentVersion: Sendable, Hashable {
    /// The commit id (40 hexadecimal digits).
    public var id: String
    /// The document, under the name it had in this version: a version from before a rename
    /// (listed in the history of the new name) carries the old name.
    public var document: DocumentPath
    /// The name of the device that saved it.
    public var deviceName: String
    /// The stable id of the device that saved it.
    public var deviceID: String
    /// The saving device's wall-clock time, to the millisecond (the hybrid logical clock's
    /// reading when it is within the second git stores; else that second).
    public var modified: Date
    /// The hybrid logical clock of the save: the order every device agrees on.
    public var clock: HybridLogicalClock
    /// The id of the content (a blob, or a tree for a package); nil for a deletion.
    public var contentID: String?
    /// True when this version deleted the document.
    public var isDeleted: Bool
    /// True when this version made the name a folder of documents (the file, if there was one,
    /// replaced by a folder): a version without content, like a deletion, that a resolution can
    /// keep (the folder stays) or not (the folder's documents are deleted).
    public var isFolder: Bool
    /// The size in bytes (a package: its files together); 0 for a deletion.
    public var size: Int
    /// True for a package document.
    public var isPackage: Bool
    /// True when this is the current version (the content in `main`).
    public var isCurrent: Bool
    /// True when this is an unresolved conflict version.
    public var isConflict: Bool
    /// The ids of the versions this version resolved (empty for an ordinary save).
    public var resolves: [String]
    /// The name the document had before this version renamed it (`concord mv`); nil otherwise.
    public var renamedFrom: DocumentPath?
    /// The name this version gave the document, whose deletion under this name it is; nil otherwise.
    public var renamedTo: DocumentPath?
    /// The ids of the versions this version replaced: for a save, the version it was made on
    /// top of; for a resolution, every version it resolved. Following these links gives the
    /// document's line of edits (graph ancestry does not: after an integration every later
    /// commit descends from both sides, though it adopted only one side's content).
    public var replaces: [String]
}

extension DocumentVersion {
    /// This version's place in the latest-wins order every device agrees on.
    public var rank: LatestWins.Rank { LatestWins.Rank(clock: clock, deviceID: deviceID, id: id) }
}
