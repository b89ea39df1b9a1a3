internal import FoundationEssentials
internal import Glibc
internal import Synchronization

/// One fetch, push or upload as the network watch sees it: its limits, what its connections
/// received before the first object, when libgit2 last reported progress, and why the watch cut
/// a connection short, if it did.
///
/// ``run(_:)`` makes it the calling thread's operation for the whole libgit2 call: libgit2
/// opens its sockets on the calling thread, and each ``SocketStream`` joins the operation it
/// finds there (and its ``keptSockets``, when the operation runs on a kept transport).
final class NetworkOperation: Sendable {
    /// Why a connection was cut short.
    enum Verdict: Sendable, Equatable {
        /// The name of the host was not resolved within the time-out.
        case unresolved(host: String)
        /// No connection was made within the time-out.
        case notConnected(peer: String)
        /// The connection moved fewer than ``NetworkLimits/minimumProgress`` bytes within the
        /// time-out while libgit2 reported no progress; the server sent `received` of them.
        case stalled(peer: String, received: UInt64)
        /// The server sent more than ``NetworkLimits/answerLimit`` bytes before any object.
        case oversized(peer: String)
    }

    private struct State {
        var objectsArriving = false
        /// Bytes received so far by each open connection, and by those closed.
        var received: [ObjectIdentifier: UInt64] = [:]
        var receivedByClosed: UInt64 = 0
        var lastProgressReport: ContinuousClock.Instant = .now
        var verdict: Verdict?
    }

    let limits: NetworkLimits
    /// Where the sockets opened for the operation are kept for the operations that follow it
    /// (``KeptTransport``); nil: they end with it.
    let keptSockets: KeptSockets?
    private let state = Mutex(State())

    init(limits: NetworkLimits, keeping keptSockets: KeptSockets? = nil) {
        self.limits = limits
        self.keptSockets = keptSockets
    }

    /// The operation the calling thread runs; nil outside ``run(_:)``.
    static var current: NetworkOperation? {
        pthread_getspecific(currentOperationKey).map { Unmanaged<NetworkOperation>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Runs `body` (the libgit2 calls of one operation) as the calling thread's operation.
    /// - Throws: what `body` throws; a ``GitError`` is replaced by the cause the watch found
    ///   (``GitError/isTimeout``, ``GitError/isOversizedAnswer``) when it cut a connection, since
    ///   the error libgit2 then reports (`early EOF`, a read that failed) only
    ///   describes the cut.
    func run<T>(_ body: () throws -> T) throws -> T {
        let previous = pthread_getspecific(currentOperationKey)
        pthread_setspecific(currentOperationKey, Unmanaged.passUnretained(self).toOpaque())
        defer { pthread_setspecific(currentOperationKey, previous) }
        do {
            return try withExtendedLifetime(self) { try body() }
        } catch let error as GitError {
            guard let verdict else { throw error }
            throw Self.error(for: verdict, limits: limits, function: error.function)
        }
    }

    /// The first cut the watch made, if any.
    var verdict: Verdict? { state.withLock { $0.verdict } }

    /// When libgit2 last reported progress: objects received or indexed, a progress message from
    /// the server (read inside ssh's or TLS's encryption, where the watch's byte counters cannot
    /// tell a server at work from one that drips), a pack being built.
    var lastProgressReport: ContinuousClock.Instant { state.withLock { $0.lastProgressReport } }

    /// True until the first object of a fetch arrives: what the connections receive meanwhile
    /// counts against ``NetworkLimits/answerLimit``.
    var countsAnswer: Bool { state.withLock { !$0.objectsArriving } }

    /// Notes that objects arrive or are indexed: the answer's limit no longer applies, and the
    /// operation makes progress.
    func noteObjectsArriving() {
        state.withLock { state in
            state.objectsArriving = true
            state.lastProgressReport = .now
        }
    }

    /// Notes that libgit2 reported progress other than objects: a progress message from the
    /// server, a pack being built.
    func noteProgress() {
        state.withLock { $0.lastProgressReport = .now }
    }

    /// Notes that the connection `socket` has received `total` bytes since it connected.
    /// - Returns: ``Verdict/oversized(peer:)`` when the operation's connections together received
    ///   more than the answer's limit before any object.
    func noteReceived(_ total: UInt64, by socket: ObjectIdentifier, peer: String) -> Verdict? {
        state.withLock { state in
            guard !state.objectsArriving else { return nil }
            state.received[socket] = total
            let all = state.received.values.reduce(state.receivedByClosed, +)
            return all > UInt64(limits.answerLimit) ? .oversized(peer: peer) : nil
        }
    }

    /// Notes that the connection `socket` closed.
    func noteClosed(_ socket: ObjectIdentifier) {
        state.withLock { state in
            state.receivedByClosed += state.received.removeValue(forKey: socket) ?? 0
        }
    }

    /// Records why a connection was cut; the first cause stays.
    func record(_ verdict: Verdict) {
        state.withLock { state in
            if state.verdict == nil { state.verdict = verdict }
        }
    }

    /// The line that says what `verdict` means.
    static func message(for verdict: Verdict, limits: NetworkLimits) -> String {
        switch verdict {
        case let .unresolved(host):
            "timed out: cannot resolve \(host) within \(limits.describedTimeout)"
        case let .notConnected(peer):
            "timed out: cannot connect to \(peer) within \(limits.describedTimeout)"
        case let .stalled(peer, received):
            "timed out: no progress from \(peer) in \(limits.describedTimeout) (it sent \(received == 0 ? "nothing" : received == 1 ? "1 byte" : "\(received) bytes"))"
        case let .oversized(peer):
            "\(peer) sent more than \(limits.answerLimit >> 20) MB before any object"
        }
    }

    /// The error that reports `verdict` in place of the one libgit2 gave for the cut.
    static func error(for verdict: Verdict, limits: NetworkLimits, function: String) -> GitError {
        let code: GitError.Code = if case .oversized = verdict { .oversizedAnswer } else { .timeout }
        return GitError(code: code, errorClass: .net, message: message(for: verdict, limits: limits), function: function)
    }
}

/// One connection's progress as the network watch judges it: the bytes it had moved (received
/// and sent) when it last made progress, the bytes received then, and when. The one rule for
/// every kind of connection (``SocketStream``, ``SSHProcess``).
struct ConnectionProgress {
    private var bytes: UInt64 = 0
    private var received: UInt64 = 0
    private(set) var time: ContinuousClock.Instant = .now

    /// Judges the connection that has received `received` and moved `moved` bytes in all, at
    /// `now`, within `operation`: more than the answer's limit before any object
    /// (``NetworkOperation/noteReceived(_:by:peer:)``), or fewer than
    /// ``NetworkLimits/minimumProgress`` bytes moved within the time-out while libgit2 reported
    /// no progress either.
    /// - Returns: the verdict that cuts it; nil while it goes on.
    mutating func verdict(
        received: UInt64, moved: UInt64, at now: ContinuousClock.Instant, in operation: NetworkOperation, connection: ObjectIdentifier, peer: String
    ) -> NetworkOperation.Verdict? {
        if let oversized = operation.noteReceived(received, by: connection, peer: peer) { return oversized }
        if moved &- bytes >= operation.limits.minimumProgress || operation.lastProgressReport > time {
            bytes = moved
            self.received = received
            time = now
        } else if now - time >= .seconds(operation.limits.timeout) {
            return .stalled(peer: peer, received: received &- self.received)
        }
        return nil
    }

    /// Starts again from nothing moved, now: a connection just made, or taken over by another
    /// operation (its counters then given from that moment).
    mutating func restart() { self = ConnectionProgress() }
}

/// The thread-specific slot that holds the thread's ``NetworkOperation`` (unretained: ``NetworkOperation/run(_:)`` keeps it alive).
private let currentOperationKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key, nil)
    return key
}()
