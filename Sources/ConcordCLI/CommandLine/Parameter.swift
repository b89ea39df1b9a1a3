/// One flag, option or positional argument of a command: what the parser accepts and the line
/// help gives it.
struct Parameter: Sendable {
    /// What a parameter is on the command line.
    enum Kind: Sendable, Equatable {
        /// `--name`, present or not.
        case flag
        /// `--name VALUE`, `--name=VALUE`, or `-N VALUE` / `-NVALUE` for a one-letter name.
        case option(valueName: String)
        /// A word in its place among the command's positional arguments.
        case argument(isOptional: Bool)
    }

    /// Its name: a flag's or option's long name without the dashes (`dry-run`; one letter for
    /// a short option, `C`), or an argument's (`document`, shown `<document>`).
    let name: String
    /// What it is.
    let kind: Kind
    /// What it does, for help (one sentence or a few).
    let help: String
    /// An option given several times keeps each value; an argument takes every word left.
    let isRepeatable: Bool
    /// An option that takes every word after it up to the next option (`--set A B C`).
    var takesSeveral = false

    /// `--name`.
    static func flag(_ name: String, help: String) -> Parameter {
        Parameter(name: name, kind: .flag, help: help, isRepeatable: false)
    }

    /// `--name VALUE` (`-N VALUE` when `name` is one letter); `repeatable` keeps every value
    /// given; `several` takes the words after it up to the next option as values too.
    static func option(_ name: String, value: String, help: String, repeatable: Bool = false, several: Bool = false) -> Parameter {
        Parameter(name: name, kind: .option(valueName: value), help: help, isRepeatable: repeatable || several, takesSeveral: several)
    }

    /// A positional argument; `optional` may be left out, `repeating` takes every word left.
    static func argument(_ name: String, help: String, optional: Bool = false, repeating: Bool = false) -> Parameter {
        Parameter(name: name, kind: .argument(isOptional: optional || repeating), help: help, isRepeatable: repeating)
    }

    /// Whether it is a positional argument (not a flag or an option).
    var isArgument: Bool {
        if case .argument = kind { true } else { false }
    }

    /// How a person types it: `--dry-run`, `-C`, `<document>`.
    var spelling: String {
        switch kind {
        case .argument: "<\(name)>"
        case .flag, .option: name.utf8.count == 1 ? "-\(name)" : "--\(name)"
        }
    }

    /// Its spelling with its value: `--keep <ID>`, `-C <PATH>`, `<document>`.
    var label: String {
        switch kind {
        case .flag, .argument: spelling
        case let .option(valueName): "\(spelling) <\(valueName)>"
        }
    }

    /// Its part of a usage line: brackets around what may be left out, `...` after what repeats.
    var usage: String {
        let repeated = label + (isRepeatable ? " ..." : "")
        return kind == .argument(isOptional: false) ? repeated : "[\(repeated)]"
    }
}

extension Parameter {
    /// `<document>`: a document's path, read from the folder the command runs in.
    static let document = argument("document", help: "The document's path, relative to the current folder.")
    /// `[<document>]`: a document's path, for a command that may take every document instead.
    static let optionalDocument = argument("document", help: "The document's path, relative to the current folder.", optional: true)
    /// `--json`: the command's result as one JSON document.
    static let json = flag("json", help: "Print one JSON document.")
}
