extension StringProtocol {
    /// The text without the spaces and tabs at its start and end (Foundation's
    /// `trimmingCharacters(in: .whitespaces)`); with `newlines`, without line ends there either.
    package func trimmingSpaces(newlines: Bool = false) -> String {
        func trimmed(_ character: Character) -> Bool {
            character.isWhitespace && (newlines || !character.isNewline)
        }
        guard let first = firstIndex(where: { !trimmed($0) }), let last = lastIndex(where: { !trimmed($0) }) else { return "" }
        return String(self[first...last])
    }
}
