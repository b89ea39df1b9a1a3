/// Help's layout: text wrapped before 80 columns, and entries of a label and its help, the help
/// in a column of its own.
enum HelpText {
    /// The width help wraps at: lines have fewer characters.
    static let width = 80
    /// Where an entry's help starts.
    static let helpColumn = 26

    /// `text` wrapped into lines shorter than `width`.
    static func wrap(_ text: String, width: Int = width) -> String {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, line.count + 1 + word.count >= width {
                lines.append(line)
                line = ""
            }
            line += line.isEmpty ? String(word) : " \(word)"
        }
        lines.append(line)
        return lines.joined(separator: "\n")
    }

    /// Paragraphs wrapped one by one; a line starting with a space is kept as it is.
    static func wrapParagraphs(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.first == " " || line.isEmpty ? String(line) : wrap(String(line))
        }.joined(separator: "\n")
    }

    /// `  LABEL   help…`, the help wrapped in its column (on the next line when the label is long).
    static func entry(_ label: String, _ help: String) -> String {
        let padding = String(repeating: " ", count: helpColumn)
        let wrapped = wrap(help, width: width - helpColumn + 1).split(separator: "\n").joined(separator: "\n" + padding)
        let start = "  \(label)"
        if start.count <= helpColumn - 2 {
            return start + String(repeating: " ", count: helpColumn - start.count) + wrapped + "\n"
        }
        return start + "\n" + padding + wrapped + "\n"
    }
}
