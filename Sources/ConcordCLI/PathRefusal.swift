import Synchronization

/// A document path refused while the root parses a command line. argument-parser only learns
/// that the value failed, and would print a message with the usage; the root prints this reason
/// instead, as one line, with the exit status of bad usage (2).
struct PathRefusal: Error {
    /// Why the path was refused, as ``DocumentPath`` says it.
    let reason: any Error

    /// Where the parse under way keeps its refusal; nil outside the root's parse.
    @TaskLocal static var collector: Collector?

    /// Keeps the first refusal of one parse: parsing stops at the first value it cannot take.
    final class Collector: Sendable {
        private let first = Mutex<PathRefusal?>(nil)

        func record(_ reason: any Error) {
            first.withLock { $0 = $0 ?? PathRefusal(reason: reason) }
        }

        var refusal: PathRefusal? { first.withLock { $0 } }
    }
}
