internal import Foundation
internal import Synchronization

/// The secrets of one run of the resolver page's server (``AccessGuard`` checks them): the
/// token of the printed address, the CSRF token writes carry, and the port once it is bound.
public final class AccessSecrets: Sendable {
    /// The token of the printed address.
    public let token: String
    /// The token writes must carry in `X-Concord-CSRF`.
    public let csrf: String
    private let boundPort = Mutex(0)

    /// Makes new random secrets (32 random bytes each, as hexadecimal).
    public init() {
        token = Self.random()
        csrf = Self.random()
    }

    /// The port the server listens on (0 until it is bound).
    public var port: Int {
        get { boundPort.withLock { $0 } }
        set { boundPort.withLock { $0 = newValue } }
    }

    /// The cookie's name: one for each port, as a host's cookies are shared by all its ports.
    var cookieName: String { "concord_ui_\(port)" }

    static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }
}
