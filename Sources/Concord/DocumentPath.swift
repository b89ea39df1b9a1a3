internal import GitFormat

/// A document's path relative to the container root: checked, normalised, slash-separated.
///
/// Refused: empty paths, absolute paths, `.` and `..` components, `.git` anywhere (in any case
/// or disguise), `.concord` at the root, control characters, text that was not valid UTF-8, and
/// names or paths too long for a file system (``PathRules``).
///
/// Two paths are equal only when their UTF-8 bytes are: names that differ by Unicode
/// normalization alone (`café.txt` with a precomposed `é`, and with `e` and a combining accent)
/// are two documents, as they are two names in git and on Linux. `String` would take them for
/// one (it compares by canonical equivalence), so equality, hashing and order are by bytes.
public struct DocumentPath: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The normalised path, for example `notes/today.txt`.
    public let value: String

    /// Checks and normalises `text` (repeated and trailing slashes are dropped).
    /// - Throws: ``ConcordError/invalidPath(_:reason:)`` with the reason.
    public init(_ text: String) throws {
        try Self.checkText(text)
        let components = text.slashSeparated()
        guard !components.isEmpty else { throw ConcordError.invalidPath(text, reason: "the path is empty") }
        for component in components {
            if component == ".." { throw ConcordError.invalidPath(text, reason: "'..' leaves the container") }
            if component == "." { throw ConcordError.invalidPath(text, reason: "'.' components are not allowed") }
            if let problem = PathRules.problem(withName: component) { throw ConcordError.invalidPath(text, reason: problem) }
        }
        if components[0] == ContainerLayout.settingsFolder {
            throw ConcordError.invalidPath(text, reason: "'.concord' holds Concord's own records")
        }
        // Each name was checked above, and the '/'s of the text by checkText.
        value = components.joined(separator: "/")
        if let problem = PathRules.lengthProblem(value) { throw ConcordError.invalidPath(text, reason: problem) }
    }

    /// The path `text` names when typed in `folder` (a folder of the container, from its root;
    /// empty for the root), as git reads a path typed in a subfolder: `note.md` typed in `notes`
    /// is `notes/note.md`, `../todo.md` typed there is `todo.md`, and `.` components are dropped.
    /// Then checked as ``init(_:)`` checks a path.
    /// - Throws: ``ConcordError/invalidPath(_:reason:)``: `..` that leaves the container and a
    ///   path naming the root name `text` as typed; other refusals name the path from the root.
    public init(_ text: String, inFolder folder: String) throws {
        try Self.checkText(text)
        var components = folder.slashSeparated()
        for component in text.slashSeparated() {
            if component == "." { continue }
            if component == ".." {
                guard components.popLast() != nil else { throw ConcordError.invalidPath(text, reason: "'..' leaves the container") }
                continue
            }
            components.append(component)
        }
        guard !components.isEmpty else { throw ConcordError.invalidPath(text, reason: "it names the container's root folder, not a document") }
        try self.init(components.joined(separator: "/"))
    }

    /// The checks of a path's whole text, before it is split into names.
    private static func checkText(_ text: String) throws {
        if text.isEmpty { throw ConcordError.invalidPath(text, reason: "the path is empty") }
        if text.unicodeScalars.contains("\u{FFFD}") {
            throw ConcordError.invalidPath(text, reason: "not valid UTF-8")
        }
        if text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw ConcordError.invalidPath(text.debugDescription, reason: "contains a control character")
        }
        if let problem = PathRules.slashProblem(text) { throw ConcordError.invalidPath(text, reason: problem) }
        if text.hasPrefix("/") || text.hasPrefix("~") {
            throw ConcordError.invalidPath(text, reason: "absolute paths leave the container; give a path relative to the container root")
        }
    }

    init(unchecked value: String) { self.value = value }

    /// The last component.
    public var name: String { String(value.slashSeparated().last ?? Substring(value)) }

    /// The components, root first.
    public var components: [Substring] { value.slashSeparated() }

    public var description: String { value }

    /// True when both paths hold the same bytes.
    public static func == (lhs: DocumentPath, rhs: DocumentPath) -> Bool { lhs.value.sameBytes(as: rhs.value) }

    /// Hashes the path's bytes.
    public func hash(into hasher: inout Hasher) { value.hashBytes(into: &hasher) }

    /// Orders paths by their bytes (git's order of names), so that listings sort the same on
    /// every device and two twins of one name never compare as equivalent.
    public static func < (lhs: DocumentPath, rhs: DocumentPath) -> Bool { lhs.value.bytesPrecede(rhs.value) }
}
