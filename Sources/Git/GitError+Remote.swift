extension GitError {
    /// True when a server refused every credential offered, or there was none to offer.
    public var isAuthentication: Bool { code == .authentication }

    /// True when an ssh server's host key was refused: unknown, changed or revoked.
    public var isHostKey: Bool {
        code == .certificate && errorClass == .ssh || errorClass == .ssh && message.contains("known_hosts")
    }

    /// True when a server that was reached answered with a refusal of its own (an ssh server's
    /// message, an https server's 403): not a connection lost, a time-out, nor a key or a
    /// certificate refused.
    public var isRefusedByServer: Bool {
        if isTimeout || isHostKey || isAuthentication { return false }
        return errorClass == .ssh || errorClass == .http && message.contains("403")
    }

    /// True when a server's TLS certificate could not be verified.
    public var isCertificate: Bool { code == .certificate && !isHostKey }

    /// True when an object read or received is missing, damaged or cannot be parsed (a commit,
    /// a folder, compressed data, a pack): what a repository or a server holds is wrong, not the
    /// way to it.
    public var isBadObject: Bool {
        code == .mismatch || [.odb, .object, .zlib, .indexer, .tree, .invalid].contains(errorClass)
    }

    /// True when a network operation timed out (``NetworkLimits/timeout``): the server could not
    /// be reached in time, or stopped answering.
    public var isTimeout: Bool { code == .timeout && errorClass == .net }

    /// True when a server sent more than ``NetworkLimits/answerLimit`` bytes before any object
    /// (an endless list of references): it was reached, and what it sends is refused.
    public var isOversizedAnswer: Bool { code == .oversizedAnswer && errorClass == .net }

    /// True when there is no repository where one was looked for (a folder that is not one, or
    /// no longer is: a disk that is not mounted).
    public var isNoRepository: Bool { errorClass == .repository }
}
