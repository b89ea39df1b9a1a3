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
}
