public import ConcordMerge

/// How to resolve a document in conflict.
public enum Resolution: Sendable {
    /// Keep the latest version: one that causally follows the others, else the greatest
    /// hybrid logical clock, then device id, then commit id.
    case latest
    /// Keep the version with this id (full or abbreviated); it must be one of those in contention.
    case keep(String)
    /// Merge the versions with a policy, against their real common ancestor.
    case merge(any MergePolicy)
    /// Merge with the policy `.concord/policies` (or the defaults) selects for the document.
    case mergeBySelection
    /// Use this content (nil: the document is deleted).
    case content(DocumentContent?)
    /// Keep the current version where it is, and save every other version in contention that
    /// has a content beside it, as a new document named after the device that saved it
    /// (`todo (Laptop)`, `notes (iPad).md`, `sketch (iPad 2).note`: the extension kept, a
    /// number added when the name is taken). When the document is a folder of documents on one
    /// side and a file on another, the folder stays and the file goes beside.
    case keepBoth
}

/// What a resolution did (or, for a dry run, would do).
public struct ResolveReport: Sendable, Hashable {
    /// The document.
    public var document: DocumentPath
    /// The version whose content was kept, when one was (latest, keep); nil for a merge or a given content.
    public var kept: DocumentVersion?
    /// The versions removed from the document's versions.
    public var removed: [DocumentVersion]
    /// Why the kept content won, in words.
    public var explanation: String
    /// The name of the policy used, for a merge.
    public var policy: String?
    /// True when the resulting content is a deletion.
    public var isDeletion: Bool
    /// The new version's id (the resolving commit); nil for a dry run.
    public var version: String?
    /// Wall-clock dates that contradict the causal order, described (empty when none).
    public var clockWarnings: [String]
    /// For ``Resolution/keepBoth``: the new document each other version was saved as, by version id.
    public var savedBeside: [String: DocumentPath] = [:]
}

/// A merge that a policy could not finish without a person.
public struct NeedsPersonError: Error, Sendable, CustomStringConvertible {
    /// The document.
    public var document: DocumentPath
    /// The policy that gave up.
    public var policy: String
    /// Why.
    public var reason: String
    /// The best-effort marked-up content, labelled with the devices' names.
    public var markedUp: DocumentContent?

    public var description: String { "'\(document)' needs a person: \(reason) (policy \(policy))" }
}
