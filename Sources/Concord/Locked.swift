internal import Synchronization

/// A value behind a mutex, in a class so that closures can share it.
final class Locked<Value>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: sending Value) { mutex = Mutex(value) }

    func withLock<T: Sendable>(_ body: (inout sending Value) throws -> T) rethrows -> T {
        try mutex.withLock { try body(&$0) }
    }
}
