/// The state of a document, as flags that can hold together (UIDocument.State, with its bit
/// values): a document can be in conflict while editing is disabled, or fail to save while in
/// conflict. The empty set is ``normal``.
public struct DocumentState: OptionSet, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The flags, with UIDocument.State's values.
    public let rawValue: Int

    /// Creates a state from its flags.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Saved, no conflict, nothing waiting: no flag.
    public static let normal: DocumentState = []
    /// The document handle was closed.
    public static let closed = DocumentState(rawValue: 1 << 0)
    /// Versions made concurrently on other devices wait to be resolved.
    public static let inConflict = DocumentState(rawValue: 1 << 1)
    /// The last save failed.
    public static let savingError = DocumentState(rawValue: 1 << 2)
    /// A write is waiting: a writer holds the container's lock and another write waits for it —
    /// a command (save, rm, resolve, sync) of any process, an open ``Document``'s save, or a sync
    /// agent holding edits it could not save yet. An edit made now would only queue behind
    /// them. A writer at work alone (a sync under way) does not disable editing: what is edited
    /// meanwhile is saved once it ends. Container-wide: every document shows it.
    public static let editingDisabled = DocumentState(rawValue: 1 << 3)
    /// A sync of this ``Container`` is moving objects (its progress goes to
    /// ``Container/Options/progress``); the document may change when it ends.
    public static let progressAvailable = DocumentState(rawValue: 1 << 4)

    /// The flags' names, most important first.
    private static let names: [(DocumentState, String)] = [
        (.closed, "closed"), (.savingError, "savingError"), (.inConflict, "inConflict"), (.editingDisabled, "editingDisabled"),
        (.progressAvailable, "progressAvailable"),
    ]

    /// The name of the most important flag — `closed`, `savingError`, `inConflict`,
    /// `editingDisabled`, `progressAvailable` in that order — or `normal`: the one word the
    /// command line shows (`concord ls`).
    public var name: String {
        Self.names.first { contains($0.0) }?.1 ?? "normal"
    }

    /// The names of every flag held, most important first; `["normal"]` for none.
    public var names: [String] {
        let held = Self.names.filter { contains($0.0) }.map(\.1)
        return held.isEmpty ? ["normal"] : held
    }

    /// The flags' names joined by `+`, like `inConflict+editingDisabled`.
    public var description: String { names.joined(separator: "+") }
}

extension DocumentState {
    /// The state of a document in `main`: in conflict or not, while a write waits or not.
    init(inConflict: Bool, writeWaiting: Bool) {
        self = []
        if inConflict { insert(.inConflict) }
        if writeWaiting { insert(.editingDisabled) }
    }
}
