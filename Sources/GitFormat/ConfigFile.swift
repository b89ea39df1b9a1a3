/// A repository's configuration file (`.git/config`) read for lookups, with git's syntax:
/// `[section]` and `[section "subsection"]` headers (and the old `[section.subsection]`),
/// `name = value` lines whose section and name are compared without case, values with `"…"`
/// quoting, the escapes `\n`, `\t`, `\b`, `\"` and `\\`, a backslash at the end of a line to
/// continue it, `#` and `;` comments, and a name alone meaning true. The last value of a key
/// wins, as `git config --get` answers.
///
/// `include` and `includeIf` sections are not followed; ``hasIncludes`` says when there are some,
/// so that a reader can ask libgit2 instead.
package struct ConfigFile {
    private var values: [String: String] = [:]
    /// True when the file has an `include` or `includeIf` section, whose files this reader
    /// does not read.
    package private(set) var hasIncludes = false

    /// Reads `bytes`.
    /// - Throws: ``FormatError`` when a header or a line is malformed (git refuses the file too).
    package init(_ bytes: [UInt8]) throws(FormatError) {
        var reader = Reader(bytes: bytes)
        var section: String?
        var line = 1
        while let byte = reader.peek() {
            switch byte {
            case 0x0A:
                line += 1
                reader.skip()
            case 0x20, 0x09, 0x0D:
                reader.skip()
            case UInt8(ascii: "#"), UInt8(ascii: ";"):
                reader.skipLine()
            case UInt8(ascii: "["):
                section = try reader.header(line: line)
                if let section, section == "include" || section.hasPrefix("include.") || section.hasPrefix("includeif.") {
                    hasIncludes = true
                }
            default:
                guard let section else { throw FormatError(.config, "line \(line) sets a value outside any section") }
                let (name, value, lines) = try reader.variable(line: line)
                values[section + "." + name] = value
                line += lines
            }
        }
    }

    /// The value of `key` (`section.name` or `section.subsection.name`); nil when unset.
    package func value(_ key: String) -> String? {
        values[Self.normalized(key)]
    }

    /// `key` as stored: section and name in lower case, the subsection as it is.
    private static func normalized(_ key: String) -> String {
        guard let first = key.firstIndex(of: "."), let last = key.lastIndex(of: ".") else { return key.lowercased() }
        return key[..<first].lowercased() + key[first..<last] + key[last...].lowercased()
    }

    /// The bytes being read, and where.
    private struct Reader {
        let bytes: [UInt8]
        var at = 0

        func peek() -> UInt8? { at < bytes.count ? bytes[at] : nil }
        mutating func skip() { at += 1 }
        mutating func skipLine() {
            while let byte = peek(), byte != 0x0A { skip() }
        }
        mutating func skipBlanks() {
            while let byte = peek(), byte == 0x20 || byte == 0x09 { skip() }
        }

        static func isNameByte(_ byte: UInt8) -> Bool {
            (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || byte == UInt8(ascii: "-")
        }

        /// `[section]`, `[section "subsection"]` or `[section.subsection]`, as the prefix of its keys.
        mutating func header(line: Int) throws(FormatError) -> String {
            let malformed = FormatError(.config, "the section header on line \(line) is malformed")
            skip()
            var name: [UInt8] = []
            while let byte = peek(), Self.isNameByte(byte) || byte == UInt8(ascii: ".") {
                name.append(byte)
                skip()
            }
            guard !name.isEmpty else { throw malformed }
            let section = String(decoding: name, as: UTF8.self).lowercased()
            if peek() == UInt8(ascii: "]") {
                skip()
                return section
            }
            skipBlanks()
            guard peek() == UInt8(ascii: "\""), !section.contains(".") else { throw malformed }
            skip()
            var subsection: [UInt8] = []
            while true {
                guard let byte = peek(), byte != 0x0A else { throw malformed }
                skip()
                if byte == UInt8(ascii: "\"") { break }
                if byte == UInt8(ascii: "\\") {
                    guard let escaped = peek(), escaped != 0x0A else { throw malformed }
                    subsection.append(escaped)
                    skip()
                } else {
                    subsection.append(byte)
                }
            }
            guard peek() == UInt8(ascii: "]") else { throw malformed }
            skip()
            return section + "." + String(decoding: subsection, as: UTF8.self)
        }

        /// `name = value` (or `name` alone, true), the name in lower case, and the line breaks
        /// the value continued over.
        mutating func variable(line: Int) throws(FormatError) -> (String, String, Int) {
            var name: [UInt8] = []
            while let byte = peek(), Self.isNameByte(byte) {
                name.append(byte)
                skip()
            }
            guard let first = name.first, first | 0x20 >= 0x61 && first | 0x20 <= 0x7A else {
                throw FormatError(.config, "line \(line) does not start with a name")
            }
            let key = String(decoding: name, as: UTF8.self).lowercased()
            skipBlanks()
            switch peek() {
            case nil, 0x0A, 0x0D, UInt8(ascii: "#"), UInt8(ascii: ";"):
                skipLine()
                return (key, "true", 0)
            case UInt8(ascii: "="):
                skip()
            default:
                throw FormatError(.config, "line \(line) has no '=' after its name")
            }
            skipBlanks()
            var value: [UInt8] = []
            var pendingSpaces = 0, quoted = false, lines = 0
            while let byte = peek(), byte != 0x0A {
                skip()
                if !quoted, byte == 0x20 || byte == 0x09 || byte == 0x0D {
                    if !value.isEmpty { pendingSpaces += 1 }
                    continue
                }
                if !quoted, byte == UInt8(ascii: "#") || byte == UInt8(ascii: ";") {
                    skipLine()
                    break
                }
                value.append(contentsOf: repeatElement(0x20, count: pendingSpaces))
                pendingSpaces = 0
                switch byte {
                case UInt8(ascii: "\""):
                    quoted.toggle()
                case UInt8(ascii: "\\"):
                    guard let escaped = peek() else { throw FormatError(.config, "line \(line + lines) ends in the middle of an escape") }
                    skip()
                    switch escaped {
                    case 0x0A: lines += 1
                    case UInt8(ascii: "n"): value.append(0x0A)
                    case UInt8(ascii: "t"): value.append(0x09)
                    case UInt8(ascii: "b"): value.append(0x08)
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"): value.append(escaped)
                    default: throw FormatError(.config, "line \(line + lines) has an unknown escape")
                    }
                default:
                    value.append(byte)
                }
            }
            guard !quoted else { throw FormatError(.config, "line \(line + lines) ends inside quotes") }
            return (key, String(decoding: value, as: UTF8.self), lines)
        }
    }
}
