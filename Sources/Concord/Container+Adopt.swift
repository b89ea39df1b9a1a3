internal import ConcordMerge
internal import FoundationEssentials
internal import GitStore

/// Moving documents into and out of the cloud (the setUbiquitous role).
///
/// Each move copies first and removes last: adopt writes the file into the work tree and saves
/// it before removing the local copy; evict writes the local copy before saving the deletion.
/// Interrupted at any point, both copies exist, or one does — never none.
extension Container {
    /// Moves the file (or package folder) at `source`, outside the container, into it as `document`.
    /// - Throws: ``ConcordError/io(_:reason:)`` when `source` is missing or inside the container;
    ///   ``ConcordError/failed(_:)`` when `document` already exists with other content;
    ///   ``ConcordError/ignored(_:rule:)`` when the ignore rules leave `document` out.
    @available(*, noasync, message: "blocks on disk: from async code, await the async form")
    @discardableResult
    public func adopt(fileAt source: String, as document: DocumentPath) throws -> SaveResult {
        let source = URL(fileURLWithPath: source).standardizedFileURL.path
        try refuseInside(source)
        let content = try readLocal(source)
        if let existing = try? self.content(of: document), existing != content {
            throw ConcordError.failed("'\(document)' already exists in the container with other content: evict or remove it first")
        }
        let result = try save(document, content: content)
        do {
            try FileManager.default.removeItem(atPath: source)
        } catch {
            throw ConcordError.io(source, reason: "adopted as '\(document)', but the local copy could not be removed")
        }
        return result
    }

    /// The async form of the call above: the same work on a queue of its own (``Blocking``), so that the caller's
    /// executor (the main actor of an app) never waits on disk.
    @discardableResult
    public func adopt(fileAt source: String, as document: DocumentPath) async throws -> SaveResult {
        try await background { try self.adopt(fileAt: source, as: document) }
    }

    /// Moves `document` out of the container to `destination`, a local-only path that must not exist yet;
    /// the container records the deletion as a version.
    @available(*, noasync, message: "blocks on disk: from async code, await the async form")
    @discardableResult
    public func evict(_ document: DocumentPath, to destination: String) throws -> SaveResult {
        let destination = URL(fileURLWithPath: destination).standardizedFileURL.path
        try refuseInside(destination)
        if FileManager.default.fileExists(atPath: destination) {
            throw ConcordError.io(destination, reason: "already exists; evict never overwrites")
        }
        guard let content = try self.content(of: document) else { throw ConcordError.noSuchDocument(document.value) }
        let folder = PathText.folder(of: destination)
        let staging = "\(folder)/.concord-evict-\(UUID().uuidString)"
        let local = WorkTree(root: folder)
        let name = PathText.name(of: staging)
        switch content {
        case let .file(data):
            try local.write(name, data: data)
        case let .package(files):
            for (path, data) in files { try local.write("\(name)/\(path)", data: data) }
        }
        guard rename(staging, destination) == 0 else {
            try? FileManager.default.removeItem(atPath: staging)
            throw ConcordError.io(destination, reason: "cannot move the copy into place")
        }
        return try remove(document)
    }

    /// The async form of the call above: the same work on a queue of its own (``Blocking``), so that the caller's
    /// executor (the main actor of an app) never waits on disk.
    @discardableResult
    public func evict(_ document: DocumentPath, to destination: String) async throws -> SaveResult {
        try await background { try self.evict(document, to: destination) }
    }

    private func refuseInside(_ path: String) throws {
        let rootPath = URL(fileURLWithPath: root).standardizedFileURL.path
        if path == rootPath || path.hasPrefix(rootPath + "/") {
            throw ConcordError.io(path, reason: "is inside the container: give a local path outside it")
        }
    }

    private func readLocal(_ path: String) throws -> DocumentContent {
        var isFolder = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw ConcordError.io(path, reason: "no such file")
        }
        if !isFolder {
            guard let data = FileManager.default.contents(atPath: path) else { throw ConcordError.io(path, reason: "cannot be read") }
            return .file(data)
        }
        let folder = WorkTree(root: PathText.folder(of: path))
        let name = PathText.name(of: path)
        var files: [(path: String, data: Data)] = []
        for file in try folder.packageFiles(name) {
            guard let data = FileManager.default.contents(atPath: "\(path)/\(file)") else { throw ConcordError.io("\(path)/\(file)", reason: "cannot be read") }
            files.append((file, data))
        }
        return try .package(named: name, files: files)
    }
}

#if canImport(Glibc)
internal import Glibc
#endif
