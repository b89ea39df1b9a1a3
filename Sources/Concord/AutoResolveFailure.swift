/// A document in conflict whose rule in `.concord/policies` ends with `auto`, which a sync could
/// not resolve: the policy needs a person (a text merge with conflicting changes), or the
/// versions cannot be merged at all. The document stays in conflict, every version kept, for a
/// person to resolve.
public struct AutoResolveFailure: Sendable, Hashable {
    /// The document, still in conflict.
    public var document: DocumentPath
    /// The rule that asked for the automatic resolution, as a line of `.concord/policies`.
    public var rule: String
    /// Why it was not resolved, one line.
    public var reason: String

    /// Makes a description of a document left in conflict.
    public init(document: DocumentPath, rule: String, reason: String) {
        self.document = document
        self.rule = rule
        self.reason = reason
    }
}
