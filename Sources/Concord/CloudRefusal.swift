/// Why a cloud that answered could not be used: it refused this device's credentials or its
/// versions, or this device refused the cloud's host key or certificate. Nothing was changed,
/// except that a sync whose push was refused (``Cause/writeAccess``) kept what it received.
public struct CloudRefusal: Sendable, Equatable, CustomStringConvertible {
    /// What was refused.
    public enum Cause: String, Sendable, Equatable {
        /// The cloud accepted none of the credentials offered, or there were none to offer.
        case authentication
        /// The ssh server's host key is unknown, changed or revoked.
        case hostKey
        /// The https server's certificate could not be verified.
        case certificate
        /// The cloud let this device read but refused its push (a read-only user of a shared
        /// git host): the sync received the other devices' versions, and this device keeps its
        /// own until it may write.
        case writeAccess
    }

    /// What was refused.
    public var cause: Cause
    /// The cloud's URL, without secrets.
    public var url: String
    /// The reason, and what to do about it.
    public var detail: String

    /// Creates a refusal.
    public init(cause: Cause, url: String, detail: String) {
        self.cause = cause
        self.url = url
        self.detail = detail
    }

    public var description: String {
        switch cause {
        case .authentication: "authentication failed for the cloud \(url): \(detail)"
        case .hostKey: "host key refused for the cloud \(url): \(detail)"
        case .certificate: "certificate not trusted for the cloud \(url): \(detail)"
        case .writeAccess: "cannot send to the cloud \(url): it does not let this device write: \(detail)"
        }
    }
}
