public import ArgumentParser
public import Concord

/// A document argument is checked while the command line is parsed: a path that leaves the
/// container, names `.git` or `.concord`, or is not valid UTF-8 is bad usage, and nothing runs.
extension DocumentPath: ExpressibleByArgument {
    /// Checks `argument` as ``DocumentPath/init(_:)`` does; nil when it is refused, the reason
    /// kept for the root's one-line message.
    public init?(argument: String) {
        do {
            try self.init(argument)
        } catch {
            PathRefusal.collector?.record(error)
            return nil
        }
    }
}
