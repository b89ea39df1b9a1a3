/// The four kinds of git object, numbered as git numbers them in a pack (and libgit2 in its
/// `git_object_t`).
package enum ObjectType: UInt8, Sendable {
    case commit = 1, tree = 2, blob = 3, tag = 4

    /// The name a loose object's header gives it.
    package var name: String {
        switch self {
        case .commit: "commit"
        case .tree: "tree"
        case .blob: "blob"
        case .tag: "tag"
        }
    }
}
