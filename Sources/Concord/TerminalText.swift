/// Text that came from outside (names from the cloud, device names in commits) made safe to
/// print: control characters are shown as escapes, never sent to the terminal, so that no name
/// can fake an output line or drive the terminal.
public enum TerminalText {
    /// `text` with every control character written as an escape: `\n`, `\t`, `\r`, `\u{1B}`, ….
    public static func escaped(_ text: String) -> String {
        // Every control character has a byte below 0x20, 0x7F, or the lead byte 0xC2 (U+0080–U+00BF).
        let mayHoldControl = text.utf8.withContiguousStorageIfAvailable { $0.contains { $0 < 0x20 || $0 == 0x7F || $0 == 0xC2 } } ?? true
        guard mayHoldControl, text.unicodeScalars.contains(where: PathRules.isControl) else { return text }
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
