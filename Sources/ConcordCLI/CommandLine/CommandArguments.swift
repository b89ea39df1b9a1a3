import Concord

/// A command line read against a command's ``CommandDescription``: which flags were given and
/// the words each option and argument received. Reading one the description does not name is a
/// programming error.
struct CommandArguments {
    /// The command these arguments are for.
    let command: CommandDescription
    private var flags: Set<String> = []
    private var values: [String: [String]] = [:]

    /// Reads `words` (what follows the subcommand's name): `--name`, `--name VALUE`,
    /// `--name=VALUE`, `-C PATH`, `-CPATH`, positional words in order, and every word after
    /// `--` as positional.
    /// - Throws: ``UsageError`` for an unknown option, a missing or unexpected value or argument;
    ///   ``HelpRequest`` for `-h`/`--help` and `--version` (unless the command has an option of
    ///   that name).
    init(_ words: some Collection<String>, for command: CommandDescription) throws {
        self.command = command
        var positional: [String] = []
        var words = words[...]
        var onlyArguments = false
        while let word = words.popFirst() {
            if onlyArguments || !Self.isOption(word) {
                positional.append(word)
            } else if word == "--" {
                onlyArguments = true
            } else if word == "-h" || word == "--help" {
                throw HelpRequest.help(command)
            } else if word == "--version", command.named("version") == nil {
                throw HelpRequest.version
            } else {
                let long = word.hasPrefix("--")
                let body = word.dropFirst(long ? 2 : 1)
                let name = long ? body.prefix { $0 != "=" } : body.prefix(1)
                let attached = long ? (name.count < body.count ? body.dropFirst(name.count + 1) : nil) : (body.count > 1 ? body.dropFirst() : nil)
                guard let parameter = command.named(name), long || name.utf8.count == 1 else {
                    throw UsageError("Unknown option '\(long ? "--\(name)" : "-\(name)")'")
                }
                switch parameter.kind {
                case .flag:
                    if let attached { throw UsageError("The flag '\(parameter.spelling)' takes no value ('\(attached)')", about: parameter) }
                    flags.insert(parameter.name)
                case .option:
                    let value: String
                    if let attached {
                        value = String(attached)
                    } else if let next = words.first, !Self.isOption(next) {
                        value = next
                        words = words.dropFirst()
                    } else {
                        throw UsageError("Missing value for '\(parameter.label)'", about: parameter)
                    }
                    values[parameter.name, default: []].append(value)
                    while parameter.takesSeveral, let next = words.first, !Self.isOption(next) {
                        values[parameter.name, default: []].append(next)
                        words = words.dropFirst()
                    }
                case .argument:
                    break
                }
            }
        }
        var rest = positional[...]
        for argument in command.arguments {
            if argument.isRepeatable {
                values[argument.name] = Array(rest)
                rest = []
            } else if let word = rest.popFirst() {
                values[argument.name] = [word]
            } else if argument.kind == .argument(isOptional: false) {
                throw UsageError("Missing expected argument '\(argument.spelling)'", about: argument)
            }
        }
        if rest.count == 1 { throw UsageError("Unexpected argument '\(rest[rest.startIndex])'") }
        if rest.count > 1 {
            throw UsageError("\(rest.count) unexpected arguments: \(rest.map { "'\($0)'" }.joined(separator: ", "))")
        }
    }

    /// Whether `word` is read as an option: it starts with a dash and is neither `-` alone
    /// (standard input) nor a negative number.
    private static func isOption(_ word: String) -> Bool {
        guard word.hasPrefix("-"), word.utf8.count > 1 else { return false }
        return Double(word) == nil
    }

    private func declared(_ name: String, _ kind: (Parameter.Kind) -> Bool) -> Parameter {
        guard let parameter = command.parameters.first(where: { $0.name == name && kind($0.kind) }) else {
            preconditionFailure("'\(command.name)' declares no parameter '\(name)' of that kind")
        }
        return parameter
    }

    /// Whether the flag `name` was given.
    func flag(_ name: String) -> Bool {
        _ = declared(name) { $0 == .flag }
        return flags.contains(name)
    }

    /// The option's or argument's value (the last one given); nil when it was not given.
    func value(_ name: String) -> String? {
        values(name).last
    }

    /// Every value a repeatable option or argument was given, in order.
    func values(_ name: String) -> [String] {
        _ = declared(name) { $0 != .flag }
        return values[name] ?? []
    }

    /// The option's or argument's value read as a `T` (a number); nil when not given.
    /// - Throws: ``UsageError`` when the value is not a `T`.
    func value<T: LosslessStringConvertible>(_ name: String, as type: T.Type) throws -> T? {
        guard let text = value(name) else { return nil }
        guard let value = T(text) else {
            let parameter = declared(name) { $0 != .flag }
            throw UsageError("The value '\(text)' is invalid for '\(parameter.label)'", about: parameter)
        }
        return value
    }

    /// The option's or argument's value read as one of `T`'s cases, by name; nil when not given.
    /// - Throws: ``UsageError`` naming the cases when it is another word.
    func value<T: RawRepresentable & CaseIterable>(_ name: String, as type: T.Type) throws -> T? where T.RawValue == String {
        guard let text = value(name) else { return nil }
        guard let value = T(rawValue: text) else {
            let parameter = declared(name) { $0 != .flag }
            let listed = T.allCases.map { "'\($0.rawValue)'" }
            let named = listed.dropLast().joined(separator: ", ") + (listed.count > 1 ? " or " : "") + (listed.last ?? "")
            throw UsageError("The value '\(text)' is invalid for '\(parameter.label)'. Please provide one of \(named).", about: parameter)
        }
        return value
    }

    /// A required argument's word (the parse made sure it was given).
    func argument(_ name: String) -> String {
        guard let word = value(name) else { preconditionFailure("the required argument '\(name)' was not checked") }
        return word
    }

    /// A required argument read as one of `T`'s cases, as ``value(_:as:)`` reads it.
    func argument<T: RawRepresentable & CaseIterable>(_ name: String, as type: T.Type) throws -> T where T.RawValue == String {
        guard let value = try value(name, as: type) else { preconditionFailure("the required argument '\(name)' was not checked") }
        return value
    }

    /// The document a required argument names, read from the folder the command runs in
    /// (``DocumentLocation``).
    /// - Throws: ``PathRefusal`` when the path leaves the container or cannot be a document's.
    func document(_ name: String) throws -> DocumentPath {
        try Self.document(argument(name))
    }

    /// The document an optional argument names, as ``document(_:)`` reads it; nil when not given.
    func documentIfGiven(_ name: String) throws -> DocumentPath? {
        try value(name).map(Self.document)
    }

    /// The documents a repeating argument names, as ``document(_:)`` reads each.
    func documents(_ name: String) throws -> [DocumentPath] {
        try values(name).map(Self.document)
    }

    private static func document(_ text: String) throws -> DocumentPath {
        do {
            return try DocumentLocation.document(text)
        } catch {
            throw PathRefusal(reason: error)
        }
    }
}
