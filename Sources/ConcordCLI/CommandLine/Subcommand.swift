/// A `concord` subcommand: its description, made from its command line, and run.
protocol Subcommand: Sendable {
    /// Its name, help and parameters.
    static var description: CommandDescription { get }

    /// Reads and checks the parsed command line.
    /// - Throws: ``UsageError`` when the options given do not go together; ``PathRefusal`` for a
    ///   document path that cannot be one.
    init(_ arguments: CommandArguments) throws

    /// Does the work; an error is reported by the root in one line.
    func run() async throws
}

extension Subcommand {
    /// The command `arguments` describe, as any subcommand (for the root, which holds the types).
    static func make(_ arguments: CommandArguments) throws -> any Subcommand {
        try Self(arguments)
    }
}
