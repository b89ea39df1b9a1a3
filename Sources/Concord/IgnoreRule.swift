/// One ignore rule, as written, and where it is written: Concord's built-in defaults, the
/// container's `.concordignore` (every device reads it), or this device's `.git/concord/ignore`.
///
/// A rule in gitignore's syntax ignores the files and folders it matches; a rule starting with
/// `!` re-includes what an earlier rule ignored (the last rule that matches decides).
public struct IgnoreRule: Sendable, Hashable, CustomStringConvertible {
    /// Where a rule is written.
    public enum Source: Sendable, Hashable {
        /// Concord's defaults for editors' and systems' temporary files.
        case builtIn
        /// The container's `.concordignore`, at a line (counted from 1); it travels with the
        /// container, so every device reads the same rules.
        case container(line: Int)
        /// This device's `.git/concord/ignore`, at a line; it never leaves the device.
        case device(line: Int)
    }

    /// The rule as written (without its trailing spaces), for example `*.log` or `!keep.tmp`.
    public let pattern: String
    /// Where the rule is written.
    public let source: Source
    let compiled: IgnorePattern

    init?(_ line: Substring, source: Source) {
        guard let compiled = IgnorePattern(line: line) else { return nil }
        var text = line
        while text.last == "\r" || text.last == " " { text = text.dropLast() }
        pattern = String(text)
        self.source = source
        self.compiled = compiled
    }

    /// True for a `!` rule: it re-includes what it matches.
    public var reincludes: Bool { compiled.isNegated }

    /// The rule and its place: `built-in rule '*.tmp'`, `rule '*.log' of .concordignore, line 3`,
    /// `rule 'build/' of .git/concord/ignore, line 1 (this device only)`.
    public var description: String {
        let shown = TerminalText.escaped(pattern)
        switch source {
        case .builtIn: return "built-in rule '\(shown)'"
        case let .container(line): return "rule '\(shown)' of \(IgnoreRules.containerFile), line \(line)"
        case let .device(line): return "rule '\(shown)' of .git/\(IgnoreRules.deviceFile), line \(line) (this device only)"
        }
    }
}
