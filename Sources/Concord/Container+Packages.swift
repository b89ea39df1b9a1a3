internal import FoundationEssentials

extension Container {
    /// The package patterns of `.concord/packages`: file-name globs of the folders handled as one
    /// document each (``DocumentInfo/isPackage``).
    @available(*, noasync, message: "blocks on disk: from async code, await the async form")
    public func packagePatterns() throws -> [String] {
        try read { History.parseLines(Data(try $0.settingsText(ContainerLayout.packages).utf8)) }
    }

    /// The async form of the call above: the same work on a queue of its own (``Blocking``), so that the caller's
    /// executor (the main actor of an app) never waits on disk.
    public func packagePatterns() async throws -> [String] {
        try await offloadRead { History.parseLines(Data(try $0.settingsText(ContainerLayout.packages).utf8)) }
    }

    /// Replaces the package patterns after the container was made: one commit of
    /// `.concord/packages`, which travels to every device. A folder the new patterns match
    /// becomes one package document, its files' history kept; a package they no longer match
    /// becomes its files.
    /// - Throws: ``ConcordError/failed(_:)`` for a pattern that is not a file-name glob, a
    ///   pattern matching a file's own name, or a document in conflict that the change would turn
    ///   into part of a package or into separate files (resolve it first); nothing changes then.
    @available(*, noasync, message: "blocks on disk: from async code, await the async form")
    public func setPackagePatterns(_ patterns: [String]) throws {
        try write(.saved) { try $0.setPackagePatterns(patterns) }
    }

    /// The async form of the call above: the same work on a queue of its own (``Blocking``), so that the caller's
    /// executor (the main actor of an app) never waits on disk.
    public func setPackagePatterns(_ patterns: [String]) async throws {
        try await offloadWrite(.saved) { try $0.setPackagePatterns(patterns) }
    }
}
