extension Container {
    /// What a person needs to resolve `document`: every version in contention with its device,
    /// date, clock, size and content; their common ancestor (the base a merge starts from, the
    /// same one ``resolve(_:using:dryRun:)-(DocumentPath,_,_)`` merges against); each named merge
    /// policy's preview, saying which need a person and showing where; and the policy
    /// `.concord/policies` selects. Reads only: nothing changes.
    /// - Returns: the document's contention.
    /// - Throws: ``ConcordError/noSuchDocument(_:)``, ``ConcordError/notInConflict(_:)``, and
    ///   ``ConcordError/failed(_:)`` for a `.concord/policies` line that cannot be read.
    public func contention(of document: DocumentPath) throws -> Contention {
        try withCore { try $0.contention(of: document) }
    }
}
