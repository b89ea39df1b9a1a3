/// A wrong answer a fuzz target found: a reader accepted what it must refuse, refused what it
/// must accept, or returned something other than what the format says. (A crash needs no
/// error: the process dies, and libFuzzer or the test runner reports it.)
package struct FuzzFailure: Error, CustomStringConvertible {
    /// What was wrong, as one line.
    package let message: String

    /// A failure saying `message`.
    package init(_ message: String) {
        self.message = message
    }

    /// The message, as libFuzzer's log and the test runner print it.
    package var description: String { message }
}

/// Throws a ``FuzzFailure`` saying `message` unless `condition` holds.
func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws(FuzzFailure) {
    if !condition { throw FuzzFailure(message()) }
}
