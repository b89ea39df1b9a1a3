internal import Foundation

/// Facts about cloud URLs.
enum Cloud {
    /// The local folder a cloud URL names (a plain path or `file://`); nil for a network URL.
    static func localPath(_ url: String) -> String? {
        if url.hasPrefix("file://") { return String(url.dropFirst("file://".count)) }
        if url.contains("://") { return nil }
        if let colon = url.firstIndex(of: ":"), !url[..<colon].contains("/") { return nil }
        return url
    }

    /// The text with any password in a URL replaced by `***`, safe to print.
    static func redacted(_ text: String) -> String {
        guard text.contains("@"), let expression = try? NSRegularExpression(pattern: "(://[^/@:\\s]+):[^@/\\s]+@") else { return text }
        let range = NSRange(text.startIndex..., in: text)
        return expression.stringByReplacingMatches(in: text, range: range, withTemplate: "$1:***@")
    }

    /// The host name, as the default device name.
    static func defaultDeviceName() -> String {
        let name = ProcessInfo.processInfo.hostName
        return name.isEmpty ? "device" : name
    }
}
