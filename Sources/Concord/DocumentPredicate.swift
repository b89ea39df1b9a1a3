internal import ConcordMerge

/// What a live query selects (the NSMetadataQuery predicate role): a test over a document's
/// listing entry — its path and name, its state, whether it is a package. Combine with `&&`,
/// `||` and `!`:
///
/// ```swift
/// let conflictedNotes = container.query(.path(matching: "*.md") && .inConflict)
/// ```
public struct DocumentPredicate: Sendable {
    private let test: @Sendable (DocumentInfo) -> Bool
    /// A glob every selected path matches, when the predicate says one: gathering then lists
    /// only the documents it matches.
    let pattern: String?

    /// A predicate of your own over the listing entry.
    public init(_ test: @escaping @Sendable (DocumentInfo) -> Bool) {
        self.init(pattern: nil, test)
    }

    private init(pattern: String?, _ test: @escaping @Sendable (DocumentInfo) -> Bool) {
        self.pattern = pattern
        self.test = test
    }

    /// True when the query selects `document`.
    public func matches(_ document: DocumentInfo) -> Bool { test(document) }

    /// Every document.
    public static var all: DocumentPredicate { DocumentPredicate(pattern: nil) { _ in true } }

    /// The documents whose path or name matches a glob, as `.concord/policies` and `concord ls`
    /// match (``GlobPattern``).
    public static func path(matching glob: String) -> DocumentPredicate {
        let pattern = GlobPattern(glob)
        return DocumentPredicate(pattern: glob) { pattern.matches($0.path.value) }
    }

    /// The documents whose state holds every flag of `flags`.
    public static func state(contains flags: DocumentState) -> DocumentPredicate {
        DocumentPredicate(pattern: nil) { $0.state.isSuperset(of: flags) }
    }

    /// The documents in conflict.
    public static var inConflict: DocumentPredicate { state(contains: .inConflict) }

    /// The packages (folders handled as one document).
    public static var isPackage: DocumentPredicate { DocumentPredicate(pattern: nil) { $0.isPackage } }

    /// Both predicates hold.
    public static func && (lhs: DocumentPredicate, rhs: DocumentPredicate) -> DocumentPredicate {
        DocumentPredicate(pattern: lhs.pattern ?? rhs.pattern) { lhs.test($0) && rhs.test($0) }
    }

    /// Either predicate holds.
    public static func || (lhs: DocumentPredicate, rhs: DocumentPredicate) -> DocumentPredicate {
        DocumentPredicate(pattern: lhs.pattern == rhs.pattern ? lhs.pattern : nil) { lhs.test($0) || rhs.test($0) }
    }

    /// The predicate does not hold.
    public static prefix func ! (predicate: DocumentPredicate) -> DocumentPredicate {
        DocumentPredicate(pattern: nil) { !predicate.test($0) }
    }
}
