import Concord
import Testing

/// Names from the cloud printed as text: every control character escaped, C0, DEL and C1 alike,
/// and nothing else changed.
@Suite struct TerminalTextTests {
    @Test(arguments: [
        ("plain.txt", "plain.txt"),
        ("caf\u{E9} \u{A0}non-breaking \u{4E2D}\u{6587} \u{1F600}", "caf\u{E9} \u{A0}non-breaking \u{4E2D}\u{6587} \u{1F600}"),
        ("line\nbreak\ttab\rreturn", "line\\nbreak\\ttab\\rreturn"),
        ("\u{1B}]0;PWNED\u{07}", "\\u{1B}]0;PWNED\\u{7}"),
        ("del\u{7F}", "del\\u{7F}"),
        ("csi\u{9B}31m next\u{85}line", "csi\\u{9B}31m next\\u{85}line"),
        ("\u{80}\u{9F}\u{A0}\u{BF}", "\\u{80}\\u{9F}\u{A0}\u{BF}"),
    ])
    func controlCharactersAreEscapedAndNothingElse(text: String, printed: String) {
        #expect(TerminalText.escaped(text) == printed)
    }
}
