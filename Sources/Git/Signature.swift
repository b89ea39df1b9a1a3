public import Foundation

/// Who made a commit and when: a value snapshot of a git signature.
public struct Signature: Sendable, Equatable {
    /// The name (Concord writes the device name here).
    public var name: String
    /// The e-mail field (Concord writes `<device id>@concord.invalid`).
    public var email: String
    /// The moment, to the second as git stores it.
    public var time: Date
    /// The offset from UTC in minutes.
    public var timeZoneOffsetMinutes: Int

    /// Creates a signature.
    public init(name: String, email: String, time: Date, timeZoneOffsetMinutes: Int = 0) {
        self.name = name
        self.email = email
        self.time = time
        self.timeZoneOffsetMinutes = timeZoneOffsetMinutes
    }
}

/// A commit, copied out of libgit2.
public struct Commit: Sendable, Equatable {
    /// The commit's id.
    public var id: OID
    /// The id of its root tree.
    public var tree: OID
    /// Its parents' ids, first parent first.
    public var parents: [OID]
    /// The whole message, trailers included.
    public var message: String
    /// The author.
    public var author: Signature
    /// The committer.
    public var committer: Signature
}

/// What kind of object a tree entry names.
public enum ObjectKind: Sendable, Equatable {
    /// File content.
    case blob
    /// A folder.
    case tree
    /// A submodule link (never written by Concord; refused when read).
    case commit
}

/// One entry of a tree, copied out of libgit2.
public struct TreeEntry: Sendable, Equatable, Hashable {
    /// The entry's name within its tree (for ``Repository/entry(at:in:)``, the last component).
    public var name: String
    /// The id of the blob or tree it names.
    public var id: OID
    /// The git file mode (0o100644, 0o100755, 0o120000 for a symlink, 0o040000 for a tree).
    public var mode: UInt32

    /// Creates an entry.
    public init(name: String, id: OID, mode: UInt32) {
        self.name = name
        self.id = id
        self.mode = mode
    }

    /// The kind of object, from the mode.
    public var kind: ObjectKind {
        switch mode & 0o170000 {
        case 0o040000: .tree
        case 0o160000: .commit
        default: .blob
        }
    }

    /// True for a symbolic link.
    public var isSymlink: Bool { mode & 0o170000 == 0o120000 }

    /// The mode of an ordinary file.
    public static let fileMode: UInt32 = 0o100644
    /// The mode of an executable file.
    public static let executableMode: UInt32 = 0o100755
    /// The mode of a folder.
    public static let treeMode: UInt32 = 0o040000
}

/// Counts reported while objects are transferred.
public struct TransferProgress: Sendable, Equatable {
    /// Objects the remote will send.
    public var totalObjects: Int
    /// Objects received so far.
    public var receivedObjects: Int
    /// Objects indexed so far.
    public var indexedObjects: Int
    /// Bytes received so far.
    public var receivedBytes: Int
}
