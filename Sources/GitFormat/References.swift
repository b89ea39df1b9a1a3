/// git's reference files: a loose one (`refs/heads/main`: 40 hexadecimal digits and a newline)
/// and `packed-refs` (`<id> <name>` lines, `^<id>` peeled lines, `#` comments).
package enum References {
    /// The commit a loose reference file holds; nil when it is a symbolic reference
    /// (`ref: …`), which a cloud's `main` never is.
    /// - Throws: ``FormatError`` when it holds anything else.
    package static func loose(_ bytes: [UInt8]) throws(FormatError) -> OID? {
        if bytes.starts(with: "ref:".utf8) { return nil }
        var text = bytes[...]
        while let last = text.last, last == 0x0A || last == 0x0D || last == 0x20 { text.removeLast() }
        guard let id = OID(hex: String(decoding: text, as: UTF8.self)) else {
            throw FormatError(.reference, "it holds no commit id")
        }
        return id
    }

    /// The reference a symbolic reference file names (`ref: refs/heads/main`); nil when the file
    /// holds a commit id instead.
    /// - Throws: ``FormatError`` when the name is empty, does not start with `refs/`, or holds
    ///   a `..` component, a control character or a space.
    package static func symbolicTarget(_ bytes: [UInt8]) throws(FormatError) -> String? {
        guard bytes.starts(with: "ref:".utf8) else { return nil }
        var text = bytes.dropFirst(4)
        while let first = text.first, first == 0x20 || first == 0x09 { text.removeFirst() }
        while let last = text.last, last == 0x0A || last == 0x0D || last == 0x20 { text.removeLast() }
        let name = String(decoding: text, as: UTF8.self)
        guard name.hasPrefix("refs/"), !name.slashSeparated().contains(".."),
            !name.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F })
        else { throw FormatError(.reference, "it names \(name.debugDescription), not a reference") }
        return name
    }

    /// The id `packed-refs` gives `name`; nil when it does not list it. Every line is checked,
    /// in one pass: a malformed file is refused, whichever line is wrong.
    /// - Throws: ``FormatError`` naming the first malformed line.
    package static func packed(_ bytes: [UInt8], named name: String) throws(FormatError) -> OID? {
        let wanted = Array(name.utf8)
        var found: OID?
        var number = 0
        var start = 0
        while start < bytes.count {
            number += 1
            let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
            let line = bytes[start..<end]
            start = end + 1
            guard let first = line.first, first != UInt8(ascii: "#") else { continue }
            if first == UInt8(ascii: "^") {
                guard line.count == 41, OID(hex: String(decoding: line.dropFirst(), as: UTF8.self)) != nil else {
                    throw FormatError(.reference, "line \(number) of packed-refs is malformed")
                }
                continue
            }
            guard line.count > 41, line[line.startIndex + 40] == UInt8(ascii: " "),
                let id = OID(hex: String(decoding: line.prefix(40), as: UTF8.self))
            else { throw FormatError(.reference, "line \(number) of packed-refs is malformed") }
            if line.dropFirst(41).elementsEqual(wanted) { found = id }
        }
        return found
    }
}
