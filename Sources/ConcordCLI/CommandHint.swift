import Concord

extension ConcordError {
    /// The `concord` command that gets a person out of this error, when there is one: the
    /// library's errors speak of the library, the command line adds its own commands.
    var commandHint: String? {
        switch self {
        case .notAContainer: "run 'concord init' or 'concord clone' first"
        case let .cloudHasContainer(url): "join it with 'concord clone \(url) PATH'"
        case let .notAContestedVersion(_, document): "see 'concord versions \(Self.typed(document))'"
        case let .ignored(path, _): "'concord save --force \(Self.typed(path))' saves it anyway"
        case .unsavedChanges: "concord save DOC, or concord save --all"
        case .noCloud: "add one with 'git remote add origin URL' in the container"
        case .missingInput: "give its content with --file SRC or on standard input"
        case .busy: "another concord command, the agent (concord watch) or an app"
        default: nil
        }
    }

    /// A path from the root, as typed in the folder the command runs in (``DocumentLocation``).
    private static func typed(_ path: String) -> String {
        (try? DocumentPath(path)).map(DocumentLocation.typed) ?? path
    }

    /// The line printed for this error: its description, and the command hint when there is one.
    var commandLineMessage: String {
        commandHint.map { "\(description) (\($0))" } ?? description
    }
}
