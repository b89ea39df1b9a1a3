internal import Synchronization

/// A value behind a mutex, in a class so that closures can share it.
final class Locked<Value>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: sending Value) { mutex = Mutex(value) }

    func withLock<T: Sendable>(_ body: (inout sending Value) throws -> T) rethrows -> T {
        try mutex.withLock { try body(&$0) }
    }

    /// Runs `body` when no other caller holds the value now; nil, without running it, otherwise.
    func withLockIfAvailable<T: Sendable>(_ body: (inout sending Value) throws -> T) throws -> T? {
        let outcome = mutex.withLockIfAvailable { value -> Result<T, any Error> in
            do {
                return .success(try body(&value))
            } catch {
                return .failure(error)
            }
        }
        return try outcome?.get()
    }
}
