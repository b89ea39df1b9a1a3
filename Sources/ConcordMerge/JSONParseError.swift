/// Why a text is not valid JSON, and where.
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong.
    public var message: String
    /// The line of the problem, from 1.
    public var line: Int
    /// The column of the problem, in bytes from 1.
    public var column: Int

    /// Creates an error.
    public init(message: String, line: Int, column: Int) {
        self.message = message
        self.line = line
        self.column = column
    }

    public var description: String { "line \(line), column \(column): \(message)" }
}
