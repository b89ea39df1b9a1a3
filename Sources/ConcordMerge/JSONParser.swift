internal import GitFormat

/// A strict RFC 8259 parser over bytes that keeps member order, number text and source ranges.
struct JSONParser {
    private let bytes: [UInt8]
    private var position = 0
    private var depth = 0
    private static let maximumDepth = 512

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Parses one JSON text (whitespace around it allowed, a UTF-8 byte order mark before it).
    /// - Throws: ``JSONParseError``.
    static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONSyntax {
        var parser = JSONParser(bytes: bytes)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.position = 3 }
        parser.skipWhitespace()
        let syntax = try parser.parseValue()
        parser.skipWhitespace()
        guard parser.position == bytes.count else { throw parser.error("unexpected text after the JSON value") }
        return syntax
    }

    private func error(_ message: String) -> JSONParseError {
        var line = 1
        var lineStart = 0
        for index in 0..<min(position, bytes.count) where bytes[index] == UInt8(ascii: "\n") {
            line += 1
            lineStart = index + 1
        }
        return JSONParseError(message: message, line: line, column: position - lineStart + 1)
    }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    private var describeNext: String {
        guard position < bytes.count else { return "the end of the text" }
        let byte = bytes[position]
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x\(String(byte, radix: 16))"
    }

    private mutating func parseValue() throws(JSONParseError) -> JSONSyntax {
        guard position < bytes.count else { throw error("expected a value, found the end of the text") }
        let start = position
        switch bytes[position] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""):
            let text = try parseString()
            return JSONSyntax(value: .string(text), range: start..<position, children: [])
        case UInt8(ascii: "t"): try literal("true"); return JSONSyntax(value: .bool(true), range: start..<position, children: [])
        case UInt8(ascii: "f"): try literal("false"); return JSONSyntax(value: .bool(false), range: start..<position, children: [])
        case UInt8(ascii: "n"): try literal("null"); return JSONSyntax(value: .null, range: start..<position, children: [])
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let text = try parseNumber()
            return JSONSyntax(value: .number(text), range: start..<position, children: [])
        default: throw error("expected a value, found \(describeNext)")
        }
    }

    private mutating func literal(_ word: String) throws(JSONParseError) {
        let count = word.utf8.count
        guard position + count <= bytes.count, bytes[position..<position + count].elementsEqual(word.utf8) else { throw error("expected a value, found \(describeNext)") }
        position += count
    }

    private mutating func enter() throws(JSONParseError) {
        depth += 1
        if depth > JSONParser.maximumDepth { throw error("nested more than \(JSONParser.maximumDepth) levels deep") }
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONSyntax {
        let start = position
        try enter()
        position += 1
        var members: [JSONMember] = []
        var children: [JSONSyntax] = []
        var keys: Set<ExactText> = []
        skipWhitespace()
        if position < bytes.count && bytes[position] == UInt8(ascii: "}") {
            position += 1
        } else {
            while true {
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                    throw error("expected a member name in quotes, found \(describeNext)")
                }
                let keyStart = position
                let key = try parseString()
                guard keys.insert(ExactText(key)).inserted else {
                    position = keyStart
                    throw error("the member name \(QuotedText.quoted(key)) appears twice in one object")
                }
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else {
                    throw error("expected ':' after a member name, found \(describeNext)")
                }
                position += 1
                skipWhitespace()
                let child = try parseValue()
                members.append(JSONMember(key: key, value: child.value))
                children.append(child)
                skipWhitespace()
                guard position < bytes.count else { throw error("expected ',' or '}', found the end of the text") }
                if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
                if bytes[position] == UInt8(ascii: "}") { position += 1; break }
                throw error("expected ',' or '}', found \(describeNext)")
            }
        }
        depth -= 1
        return JSONSyntax(value: .object(members), range: start..<position, children: children)
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONSyntax {
        let start = position
        try enter()
        position += 1
        var children: [JSONSyntax] = []
        skipWhitespace()
        if position < bytes.count && bytes[position] == UInt8(ascii: "]") {
            position += 1
        } else {
            while true {
                skipWhitespace()
                children.append(try parseValue())
                skipWhitespace()
                guard position < bytes.count else { throw error("expected ',' or ']', found the end of the text") }
                if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
                if bytes[position] == UInt8(ascii: "]") { position += 1; break }
                throw error("expected ',' or ']', found \(describeNext)")
            }
        }
        depth -= 1
        return JSONSyntax(value: .array(children.map(\.value)), range: start..<position, children: children)
    }

    private mutating func digits() -> Int {
        let start = position
        while position < bytes.count, bytes[position] >= UInt8(ascii: "0"), bytes[position] <= UInt8(ascii: "9") {
            position += 1
        }
        return position - start
    }

    private mutating func parseNumber() throws(JSONParseError) -> String {
        let start = position
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard position < bytes.count else { throw error("expected a digit, found the end of the text") }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
        } else if digits() == 0 {
            throw error("expected a digit, found \(describeNext)")
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard digits() > 0 else { throw error("expected a digit after '.', found \(describeNext)") }
        }
        if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard digits() > 0 else { throw error("expected a digit in the exponent, found \(describeNext)") }
        }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    private mutating func hex4() throws(JSONParseError) -> UInt16 {
        guard position + 4 <= bytes.count else { throw error("expected four hex digits after \\u") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8 =
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
                default: throw error("expected four hex digits after \\u, found \(describeNext)")
                }
            value = value << 4 | UInt16(digit)
            position += 1
        }
        return value
    }

    private mutating func parseString() throws(JSONParseError) -> String {
        position += 1
        var utf8: [UInt8] = []
        var runStart = position
        while true {
            guard position < bytes.count else { throw error("a string is not closed") }
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                utf8.append(contentsOf: bytes[runStart..<position])
                position += 1
                break
            }
            if byte < 0x20 { throw error("a control character (byte 0x\(String(byte, radix: 16))) must be escaped in a string") }
            if byte != UInt8(ascii: "\\") { position += 1; continue }
            utf8.append(contentsOf: bytes[runStart..<position])
            position += 1
            guard position < bytes.count else { throw error("a string is not closed") }
            let escape = bytes[position]
            position += 1
            switch escape {
            case UInt8(ascii: "\""): utf8.append(0x22)
            case UInt8(ascii: "\\"): utf8.append(0x5C)
            case UInt8(ascii: "/"): utf8.append(0x2F)
            case UInt8(ascii: "b"): utf8.append(0x08)
            case UInt8(ascii: "f"): utf8.append(0x0C)
            case UInt8(ascii: "n"): utf8.append(0x0A)
            case UInt8(ascii: "r"): utf8.append(0x0D)
            case UInt8(ascii: "t"): utf8.append(0x09)
            case UInt8(ascii: "u"):
                var unit = try hex4()
                var scalar: Unicode.Scalar?
                if (0xD800..<0xDC00).contains(unit),
                    position + 6 <= bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u")
                {
                    let save = position
                    position += 2
                    let low = try hex4()
                    if (0xDC00..<0xE000).contains(low) {
                        scalar = Unicode.Scalar(0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00))
                    } else {
                        position = save
                    }
                }
                if scalar == nil {
                    if (0xD800..<0xE000).contains(unit) { unit = 0xFFFD }
                    scalar = Unicode.Scalar(unit)
                }
                utf8.append(contentsOf: String(Character(scalar ?? "\u{FFFD}")).utf8)
            default:
                position -= 1
                throw error("unknown escape \\\(describeNext) in a string")
            }
            runStart = position
        }
        guard let text = String(validating: utf8, as: UTF8.self) else {
            throw error("a string is not valid UTF-8")
        }
        return text
    }
}
