import Concord
import FoundationEssentials
internal import Glibc

/// Where in its container a command runs, for the document paths typed on its command line.
///
/// The rule, git's: a DOC is a path from the folder the command runs in (the folder `-C PATH`
/// names, else the current folder). At the container root that is the path from the root, as
/// always; in a subfolder, `concord save note.md` run in `notes/` saves `notes/note.md`, and
/// `../todo.md` there names `todo.md`. An absolute path names the document it reaches when it is
/// inside the container. What commands print names documents from the root; the commands they
/// suggest name them from the folder the command runs in, so that they can be typed there.
/// Outside any container, paths are read from the root (the command then fails as it would).
struct DocumentLocation: Sendable {
    /// The container's root: as found from the working folder, and with its links resolved.
    let roots: [String]
    /// The folder the command runs in, from the root; empty at the root.
    let folder: String

    /// The location of the command line being parsed and run; nil outside a container.
    @TaskLocal static var current: DocumentLocation?

    /// The location of the folder `arguments` run in (their last `-C PATH`, else the current
    /// folder); nil when it is in no container.
    init?(arguments: [String]) {
        let start = GlobalOptions.workingDirectory(given: Self.directory(in: arguments))
        guard let root = GlobalOptions.containerRoot(from: start) else { return nil }
        let resolvedRoot = Self.resolved(root), resolvedStart = Self.resolved(start)
        roots = resolvedRoot == root ? [root] : [resolvedRoot, root]
        if resolvedStart.hasPrefix(resolvedRoot + "/") {
            folder = String(resolvedStart.dropFirst(resolvedRoot.count + 1))
        } else {
            folder = ""
        }
    }

    /// The document `text` (as typed) names from here.
    /// - Throws: ``ConcordError/invalidPath(_:reason:)`` when it leaves the container or cannot
    ///   be a document's path.
    func document(_ text: String) throws -> DocumentPath {
        guard text.hasPrefix("/") else { return try DocumentPath(text, inFolder: folder) }
        let path = URL(fileURLWithPath: text).standardizedFileURL.path
        for root in roots {
            if path == root { throw ConcordError.invalidPath(text, reason: "it names the container's root folder, not a document") }
            if path.hasPrefix(root + "/") { return try DocumentPath(String(path.dropFirst(root.count + 1)), inFolder: "") }
        }
        throw ConcordError.invalidPath(text, reason: "an absolute path outside the container")
    }

    /// The document `text` names from the current location (from the root outside a container).
    static func document(_ text: String) throws -> DocumentPath {
        try current?.document(text) ?? DocumentPath(text, inFolder: "")
    }

    /// `document`'s path as typed from the current location: from the root outside a container
    /// or at its root, else relative to the folder the command runs in (`../` as needed).
    static func typed(_ document: DocumentPath) -> String {
        guard let folder = current?.folder, !folder.isEmpty else { return document.value }
        var here = folder.split(separator: "/")[...]
        var there = document.value.split(separator: "/")[...]
        while let first = here.first, let other = there.first, first == other, there.count > 1 {
            here = here.dropFirst()
            there = there.dropFirst()
        }
        return (Array(repeating: "..", count: here.count) + there.map(String.init)).joined(separator: "/")
    }

    /// The value of the last `-C` among `arguments` (before a `--`), as written.
    static func directory(in arguments: [String]) -> String? {
        var directory: String?
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" { break }
            if argument == "-C", index + 1 < arguments.count {
                directory = arguments[index + 1]
                index += 2
                continue
            }
            if argument.hasPrefix("-C"), argument.count > 2 { directory = String(argument.dropFirst(2)) }
            index += 1
        }
        return directory
    }

    private static func resolved(_ path: String) -> String {
        guard let pointer = realpath(path, nil) else { return path }
        defer { free(pointer) }
        return String(cString: pointer)
    }
}
