public import ArgumentParser
public import Concord

/// A document argument is read and checked while the command line is parsed, from the folder
/// the command runs in (``DocumentLocation``): a path that leaves the container, names `.git` or
/// `.concord`, or is not valid UTF-8 is bad usage, and nothing runs.
extension DocumentPath: ExpressibleByArgument {
    /// The document `argument` names from the folder the command runs in, checked as
    /// ``DocumentPath/init(_:)`` checks a path; nil when it is refused, the reason kept for the
    /// root's one-line message.
    public init?(argument: String) {
        do {
            self = try DocumentLocation.document(argument)
        } catch {
            PathRefusal.collector?.record(error)
            return nil
        }
    }
}
