/// Counts reported while objects are transferred.
public struct TransferProgress: Sendable, Equatable {
    /// Objects the remote will send.
    public var totalObjects: Int
    /// Objects received so far.
    public var receivedObjects: Int
    /// Objects indexed so far.
    public var indexedObjects: Int
    /// Bytes received so far.
    public var receivedBytes: Int
}
