public import Foundation
public import ConcordMerge

/// One version of a document (the NSFileVersion role): a commit in which the document's
/// content changed, or that resolved its conflict.
public struct DocumentVersion: Sendable, Hashable {
    /// The commit id (40 hexadecimal digits).
    public var id: String
    /// The document.
    public var document: DocumentPath
    /// The name of the device that saved it.
    public var deviceName: String
    /// The stable id of the device that saved it.
    public var deviceID: String
    /// The saving device's wall-clock time (to the second, as git stores it).
    public var modified: Date
    /// The hybrid logical clock of the save: the order every device agrees on.
    public var clock: HybridLogicalClock
    /// The id of the content (a blob, or a tree for a package); nil for a deletion.
    public var contentID: String?
    /// True when this version deleted the document.
    public var isDeleted: Bool
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

/// The state of a document (the UIDocument.State role).
public enum DocumentState: String, Sendable, Hashable, Codable {
    /// Saved, no conflict.
    case normal
    /// Versions made concurrently on other devices wait to be resolved.
    case inConflict
    /// Another process holds the container for writing.
    case editingDisabled
    /// The last save failed.
    case savingError
    /// The document handle was closed.
    case closed
}

/// A document as listed by ``Container/documents(matching:)``.
public struct DocumentInfo: Sendable, Hashable {
    /// The document's path.
    public var path: DocumentPath
    /// True for a package (a folder handled as one document).
    public var isPackage: Bool
    /// Its state.
    public var state: DocumentState
    /// The id of its current content.
    public var contentID: String
}

/// A document in conflict, as listed by ``Container/conflicts()``.
public struct Conflict: Sendable, Hashable {
    /// The document.
    public var document: DocumentPath
    /// How many versions are in contention, the current one included (2 when two devices diverged).
    public var versionCount: Int
    /// The ids of the unresolved versions other than the current one.
    public var conflictVersionIDs: [String]
}

/// What a save did.
public struct SaveResult: Sendable, Hashable {
    /// The document.
    public var document: DocumentPath
    /// The new version's id; nil when the content was already the current one.
    public var version: String?
    /// True when the save recorded a deletion.
    public var isDeletion: Bool
}

/// What `save --all` did.
public struct SaveAllResult: Sendable, Hashable {
    /// A work-tree entry that was not saved, and why.
    public struct Skipped: Sendable, Hashable {
        /// The entry's path in the work tree.
        public var path: String
        /// Why it was not saved.
        public var reason: String
    }

    /// The commit holding every saved document's new version; nil when nothing changed.
    public var version: String?
    /// Documents that were not in `main`.
    public var added: [DocumentPath]
    /// Documents whose content changed.
    public var changed: [DocumentPath]
    /// Documents no longer in the work tree: their deletion is saved.
    public var removed: [DocumentPath]
    /// Entries that cannot be documents (symbolic links, invalid names), left alone.
    public var skipped: [Skipped]
}
