internal import CGit2

extension GitError {
    /// True when a server refused every credential offered, or there was none to offer.
    public var isAuthentication: Bool { code == GIT_EAUTH.rawValue }

    /// True when an ssh server's host key was refused: unknown, changed or revoked.
    public var isHostKey: Bool {
        code == GIT_ECERTIFICATE.rawValue && errorClass == Int32(GIT_ERROR_SSH.rawValue)
            || errorClass == Int32(GIT_ERROR_SSH.rawValue) && message.contains("known_hosts")
    }

    /// True when a server's TLS certificate could not be verified.
    public var isCertificate: Bool { code == GIT_ECERTIFICATE.rawValue && !isHostKey }

    /// True when an object read or received is missing, damaged or cannot be parsed (a commit,
    /// a folder, compressed data, a pack): what a repository or a server holds is wrong, not the
    /// way to it.
    public var isBadObject: Bool {
        code == GIT_EMISMATCH.rawValue
            || [GIT_ERROR_ODB, GIT_ERROR_OBJECT, GIT_ERROR_ZLIB, GIT_ERROR_INDEXER, GIT_ERROR_TREE, GIT_ERROR_INVALID]
                .contains { errorClass == Int32($0.rawValue) }
    }

    /// The code of a network operation that timed out: connecting, or waiting on a server that
    /// stalled (libgit2 1.7's `GIT_TIMEOUT`; 1.5 has none, and Concord watches its sockets itself).
    public static let timeoutCode: Int32 = -37
    /// The code of a server's answer refused because it ran past ``NetworkLimits/answerLimit``
    /// before any object: Concord's own, outside libgit2's codes.
    public static let oversizedAnswerCode: Int32 = -1037

    /// True when a network operation timed out (``NetworkLimits/timeout``): the server could not
    /// be reached in time, or stopped answering.
    public var isTimeout: Bool { code == Self.timeoutCode && errorClass == Int32(GIT_ERROR_NET.rawValue) }

    /// True when a server sent more than ``NetworkLimits/answerLimit`` bytes before any object
    /// (an endless list of references): it was reached, and what it sends is refused.
    public var isOversizedAnswer: Bool { code == Self.oversizedAnswerCode && errorClass == Int32(GIT_ERROR_NET.rawValue) }

    /// True when there is no repository where one was looked for (a folder that is not one, or
    /// no longer is: a disk that is not mounted).
    public var isNoRepository: Bool { errorClass == Int32(GIT_ERROR_REPOSITORY.rawValue) }
}
