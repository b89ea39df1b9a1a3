public import GitFormat

/// What a push did: the cloud's branch moved to the commit sent, or the cloud had moved on
/// since it was fetched and nothing moved (fetch, integrate and push again).
public enum PushOutcome: Sendable, Equatable {
    /// The cloud's branch now names the commit sent.
    case pushed
    /// The cloud's branch no longer named the commit expected: it was left as it is.
    case cloudMoved
}

/// A container's cloud, reached through one transport, with one contract for every transport:
/// fetch brings what a device lacks of the cloud's branch without moving any of the device's
/// references, and push moves the cloud's branch only from the commit the device last fetched
/// (a compare-and-swap), telling a cloud that moved on as ``PushOutcome/cloudMoved``.
///
/// ``LocalCloud`` is a repository on this machine, read as someone else's, its objects copied by
/// Concord's store; ``NetworkCloud`` is reached over ssh, https, http or `git://` through
/// libgit2's transports. Not Sendable: a cloud is used by the one operation that made it.
public protocol Cloud: AnyObject {
    /// The credential the cloud accepted in the last fetch or push; nil when it asked for none.
    var acceptedCredential: Credential? { get }

    /// Brings into `repository` the objects of the cloud's `branch` (`refs/heads/main`) that it
    /// lacks, those of the commits not reachable from `known` (commits `repository` has), and
    /// returns the commit the branch names; nil when the cloud has no such branch. Moves none of
    /// `repository`'s references: the caller checks what arrived before anything names it.
    /// - Throws: ``GitError``: why the cloud could not be reached or refused this device, or
    ///   ``GitError/isBadObject`` (``GitError/isOverLimit``) for what it sent.
    func fetch(_ branch: String, into repository: Repository, known: [OID], progress: (@Sendable (TransferProgress) -> Void)?) throws -> OID?

    /// The commit the cloud's `branch` names now, read without transferring any object: what
    /// tells a device, between syncs, that the cloud moved. `repository` is the device's
    /// (a network cloud's remote is configured there).
    /// - Returns: the commit; nil when the cloud has no such branch.
    /// - Throws: ``GitError``, as ``fetch(_:into:known:progress:)`` does when it cannot reach
    ///   the cloud or either side refused the other.
    func peek(_ branch: String, from repository: Repository) throws -> OID?

    /// Sends `target` and what the cloud lacks of its history from `repository`, and moves the
    /// cloud's `branch` to it if the branch still names `expected` (nil: if it does not exist).
    /// - Returns: ``PushOutcome/cloudMoved`` when the branch names another commit (nothing
    ///   moved), else ``PushOutcome/pushed``.
    /// - Throws: ``GitError``, as ``fetch(_:into:known:progress:)`` does, and for a refusal
    ///   that is not the cloud having moved.
    func push(_ target: OID, to branch: String, expected: OID?, from repository: Repository) throws -> PushOutcome
}
