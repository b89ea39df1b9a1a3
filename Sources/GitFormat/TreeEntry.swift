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
