internal import FoundationEssentials

/// Facts about clouds that do not need a container.
enum CloudText {
    /// The text with every secret a cloud URL can carry replaced by `***`, safe to print: the
    /// password of `scheme://user:password@`, the user name of `https://TOKEN@` (any scheme but
    /// ssh, where the user names an account), the values of a URL's query (`?token=***`), and
    /// the password of the scp-like `user:password@host:path`.
    static func redacted(_ text: String) -> String {
        // Every secret below sits before an '@' or after a '?': most text has neither, and
        // compiling the expressions is a third of a command's start (`concord --version`).
        guard text.utf8.contains(UInt8(ascii: "@")) || text.utf8.contains(UInt8(ascii: "?")) else { return text }
        var result = replacing(in: text, pattern: "([A-Za-z][A-Za-z0-9+.-]*)://([^/@\\s'\"]*)@") { groups in
            let scheme = groups[1], info = groups[2]
            guard scheme.lowercased().contains("ssh") else { return "\(scheme)://***@" }
            guard let colon = info.firstIndex(of: ":") else { return groups[0] }
            return "\(scheme)://\(info[..<colon]):***@"
        }
        result = replacing(in: result, pattern: "(://[^\\s?#'\"]*\\?)([^\\s#'\"]+)") { groups in
            let fields = groups[2].split(separator: "&", omittingEmptySubsequences: false).map { field in
                field.firstIndex(of: "=").map { "\(field[...$0])***" } ?? "***"
            }
            return groups[1] + fields.joined(separator: "&")
        }
        return replacing(in: result, pattern: "(^|[\\s'\"(])([^\\s/@:'\"]+):[^\\s/@'\"]+@([^\\s/@:'\"]+):") { groups in
            "\(groups[1])\(groups[2]):***@\(groups[3]):"
        }
    }

    /// The host name, as the default device name.
    static func defaultDeviceName() -> String {
        let name = ProcessInfo.processInfo.hostName
        return name.isEmpty ? "device" : name
    }

    /// `text` with each match of `pattern` replaced by what `replacement` makes of its groups
    /// (the whole match first).
    private static func replacing(in text: String, pattern: String, _ replacement: ([String]) -> String) -> String {
        guard let expression = try? Regex(pattern) else { return text }
        return text.replacing(expression) { match in
            replacement((0..<match.output.count).map { match.output[$0].substring.map(String.init) ?? "" })
        }
    }
}
