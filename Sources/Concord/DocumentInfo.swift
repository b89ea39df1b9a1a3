/// A document as listed by ``Container/documents(matching:)``.
public struct DocumentInfo: Sendable, Hashable {
    /// The document's path.
    public var path: DocumentPath
    /// True for a package (a folder handled as one document).
    public var isPackage: Bool
    /// Its state.
    public var state: DocumentState
    /// The id of its current content.
    public var contentID: String

    /// Creates an entry (a query's predicate can be tried on one of your own).
    public init(path: DocumentPath, isPackage: Bool, state: DocumentState, contentID: String) {
        self.path = path
        self.isPackage = isPackage
        self.state = state
        self.contentID = contentID
    }
}
