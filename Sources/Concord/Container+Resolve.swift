extension Container {
    /// Resolves `document`: computes the content from the current and unresolved versions,
    /// saves it as the new current version in one commit whose trailers name the versions it
    /// resolves, removes those versions from the document's versions and clears the state.
    /// - Parameters:
    ///   - document: the document in conflict.
    ///   - resolution: how to compute its new content.
    ///   - dryRun: say what would be kept and removed, change nothing.
    /// - Throws: ``ConcordError/notInConflict(_:)``, ``ConcordError/noSuchDocument(_:)``,
    ///   ``ConcordError/notAContestedVersion(_:document:)``, ``ConcordError/unknownVersion(_:document:)``,
    ///   ``NeedsPersonError`` when a merge needs a person (nothing changed).
    @discardableResult
    public func resolve(_ document: DocumentPath, using resolution: Resolution, dryRun: Bool = false) throws -> ResolveReport {
        try notifying { try withCore { try $0.resolve(document, using: resolution, dryRun: dryRun) } }
    }
}
