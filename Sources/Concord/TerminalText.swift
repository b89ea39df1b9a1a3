/// Text that came from outside (names from the cloud, device names in commits) made safe to
/// print: control characters are shown as escapes, never sent to the terminal, so that no name
/// can fake an output line or drive the terminal.
public enum TerminalText {
    /// `text` with every control character written as an escape: `\n`, `\t`, `\r`, `\u{1B}`, ….
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: PathRules.isControl) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            case _ where PathRules.isControl(scalar): result += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
