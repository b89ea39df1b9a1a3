/// One connection to an https or http cloud, kept from one operation to the next: a sync's
/// fetch and push, or the sync agent's checks of the cloud's `main`, go over one HTTP keep-alive
/// connection (one TCP connection and one TLS handshake) instead of one each. ssh keeps its own
/// (``SSHClient``); `git://` and local paths use none.
///
/// Pass it to ``NetworkCloud/init(remote:url:access:limits:largestObject:connection:)``
/// (a cloud makes one of its own otherwise, kept as long as the cloud). Before each operation it
/// checks that the server has not closed the connection meanwhile (an idle time-out, a restart),
/// and opens a new one if it has; an operation that fails on a connection made before it,
/// before any byte of the server's answer arrived, is tried once more on a new connection.
/// After any other failure the next operation opens a new connection. Refusals (a wrong password,
/// a certificate not trusted) are never tried again.
///
/// Not Sendable: one operation at a time uses it, as a ``Repository``. The connection closes
/// with ``close()``, or when the last reference to it goes.
public final class KeptConnection {
    private var transport: KeptTransport?

    /// A connection not made yet: the first operation makes it.
    public init() {}

    /// Closes the connection now; the next operation opens a new one.
    public func close() {
        transport = nil
    }

    /// Runs `body`, one operation on the remote `name` of `repository` at `address` (an https or
    /// http URL) within `limits`, over the kept transport (made, or made again, first) and its
    /// connection.
    ///
    /// `body` runs inside its ``NetworkOperation`` (the kept sockets attached to it): it
    /// connects the transport, and closes it (not frees it) when done.
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws; ``GitError`` when the transport cannot be made.
    func run<T>(
        repository: Repository, remote name: String, address: String, limits: NetworkLimits, _ body: (KeptTransport, NetworkOperation) throws -> T
    ) throws -> T {
        var retried = false
        while true {
            let kept = try transport(repository: repository, remote: name, address: address, limits: limits)
            let operation = NetworkOperation(limits: limits, keeping: kept.sockets)
            let reused = kept.sockets.attach(to: operation)
            kept.capture.forgetAdvertisement()
            do {
                let result = try operation.run { try body(kept, operation) }
                kept.sockets.detach()
                return result
            } catch {
                kept.sockets.detach()
                // libgit2's state after a failure is not worth trusting: the next operation
                // starts from a new transport.
                transport = nil
                guard !retried, reused, !kept.capture.recordedAnything, operation.verdict == nil, let failure = error as? GitError, failure.isConnectionLost
                else { throw error }
                retried = true
            }
        }
    }

    /// The kept transport when it serves this repository, address and answer limit and its
    /// connection is still open; else a new one, the old one freed first (its connection closed).
    private func transport(repository: Repository, remote name: String, address: String, limits: NetworkLimits) throws -> KeptTransport {
        if let transport, transport.repository === repository, transport.address == address, transport.answerLimit == limits.answerLimit,
            transport.sockets.allOpen
        {
            return transport
        }
        transport = nil
        let made = try KeptTransport(repository: repository, remote: name, address: address, answerLimit: limits.answerLimit)
        transport = made
        return made
    }
}

@available(*, unavailable)
extension KeptConnection: Sendable {}

extension GitError {
    /// True when a connection broke before the server answered (it was closed or reset, or
    /// TLS failed on it): not a refusal, a certificate, a time-out, nor an answer the server gave
    /// (an http status).
    var isConnectionLost: Bool {
        guard isNetwork, !isTimeout, !isOversizedAnswer, !isAuthentication, !isCertificate else { return false }
        return errorClass != .http || message.contains("unexpected EOF")
    }
}
