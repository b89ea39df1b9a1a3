/// How a JSON text is laid out, read from a version so that merged output looks like it.
public struct JSONStyle: Sendable, Hashable {
    /// One level of indentation (two or four spaces, a tab…); nil for a text on one line.
    public var indent: String?
    /// Between a member name and its value: `":"` or `": "`.
    public var colon: String
    /// Between members and elements on one line: `","` or `", "`.
    public var comma: String
    /// The line break: `"\n"` or `"\r\n"`.
    public var newline: String

    /// Creates a style.
    public init(indent: String? = "  ", colon: String = ": ", comma: String = ",", newline: String = "\n") {
        self.indent = indent
        self.colon = colon
        self.comma = comma
        self.newline = newline
    }

    /// Two spaces, `": "`, `\n`: the style of `JSON.stringify(value, null, 2)` and of npm.
    public static let standard = JSONStyle()

    /// No spaces and no line breaks: `{"a":[1,2]}`.
    public static let compact = JSONStyle(indent: nil, colon: ":", comma: ",", newline: "")

    /// The style of a JSON text: the indentation of the first indented line inside the outermost
    /// container, and the spacing after the first colon and comma found.
    public init(detectingIn bytes: [UInt8]) {
        self.init()
        var inString = false
        var escaped = false
        var depth = 0
        var sawColon = false
        var sawComma = false
        var indentFound = false
        var index = 0
        if let lineEnd = bytes.firstIndex(of: 0x0A), lineEnd > 0, bytes[lineEnd - 1] == 0x0D { newline = "\r\n" }
        while index < bytes.count, !(indentFound && sawColon && sawComma) {
            let byte = bytes[index]
            defer { index += 1 }
            if inString {
                if escaped { escaped = false } else if byte == 0x5C { escaped = true } else if byte == 0x22 { inString = false }
                continue
            }
            switch byte {
            case 0x22: inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
            case UInt8(ascii: ":") where !sawColon:
                sawColon = true
                colon = index + 1 < bytes.count && bytes[index + 1] == 0x20 ? ": " : ":"
            case UInt8(ascii: ",") where !sawComma:
                sawComma = true
                comma = index + 1 < bytes.count && bytes[index + 1] == 0x20 ? ", " : ","
            case 0x0A where depth == 1 && !indentFound:
                var end = index + 1
                while end < bytes.count, bytes[end] == 0x20 || bytes[end] == 0x09 { end += 1 }
                if end < bytes.count, bytes[end] != 0x0A, bytes[end] != 0x0D, end > index + 1 {
                    indentFound = true
                    indent = String(decoding: bytes[(index + 1)..<end], as: UTF8.self)
                }
            default: break
            }
        }
        if !indentFound { indent = nil }
        if !sawComma { comma = colon == ": " ? ", " : "," }
        if indent != nil { comma = "," }
    }
}
