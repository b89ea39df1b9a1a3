public import GitFormat
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
