/// How long a network operation (fetch, push, upload) may wait on a server, and how much a
/// server may send before the objects of a fetch begin.
///
/// libgit2 1.5 has no time-out of its own (`GIT_OPT_SET_SERVER_TIMEOUT` came in 1.7), so every
/// socket it opens is Concord's (`SocketStream`), watched by `NetworkWatch`.
public struct NetworkLimits: Sendable, Equatable {
    /// Seconds that connecting (name resolution included) may take, and that a connection may
    /// go without progress: fewer than ``minimumRate`` bytes a second moving either way, on
    /// average, while libgit2 reports no progress (objects received or indexed, a progress
    /// message from the server, a pack being built).
    public var timeout: Double
    /// The most bytes a server may send before the first object of a fetch (the references it
    /// advertises, its answers to the negotiation), and in all of a push, which receives none.
    public var answerLimit: Int

    /// The time-out when nothing sets one: 30 seconds.
    public static let defaultTimeout: Double = 30
    /// The limit on what a server sends before any object: 32 MB, about 400,000 references.
    public static let defaultAnswerLimit = 32 << 20
    /// The slowest a connection may move and still count as progressing, in bytes a second,
    /// counted on the socket (TLS's framing included), or on an `ssh` child's standard input
    /// and output: a server dripping a byte a second is stalled. The model
    /// is curl's low-speed limit (`CURLOPT_LOW_SPEED_LIMIT`, git's `http.lowSpeedLimit`); a
    /// server at work on a large fetch says so in progress messages, which count as progress
    /// whatever their size.
    public static let minimumRate = 256

    /// Limits with `timeout` seconds (more than 0) and `answerLimit` bytes.
    public init(timeout: Double = defaultTimeout, answerLimit: Int = defaultAnswerLimit) {
        self.timeout = timeout
        self.answerLimit = answerLimit
    }

    /// The fewest bytes that count as progress within one ``timeout``.
    var minimumProgress: UInt64 { UInt64(max(1, (timeout * Double(Self.minimumRate)).rounded(.up))) }

    /// The time-out for messages: `2 s`, `0.5 s`.
    var describedTimeout: String {
        timeout == timeout.rounded() && timeout < 1e9 ? "\(Int(timeout)) s" : "\(timeout) s"
    }
}
