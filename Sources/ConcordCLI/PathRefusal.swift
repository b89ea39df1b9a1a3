/// A document path refused while a command line is read: bad usage, told in one line with the
/// reason ``DocumentPath`` gives (exit 2), and nothing runs.
struct PathRefusal: Error {
    /// Why the path was refused, as ``DocumentPath`` says it.
    let reason: any Error
}
