/// A commit object's bytes read in one pass: its tree, its parents, its author and committer
/// lines, and where its message starts.
///
/// git writes `tree <id>`, then `parent <id>` lines, then `author` and `committer` lines, then
/// any other headers (a `gpgsig` continued on lines that start with a space), an empty line,
/// and the message. Anything else is refused: a reader of someone else's bytes checks before it
/// trusts, and a walk over history needs only the tree and the parents.
package struct CommitObject {
    /// One `author` or `committer` line: `Name <email> seconds ±hhmm`.
    package struct Person: Equatable {
        /// The name, as written.
        package var name: String
        /// The address between `<` and `>`.
        package var email: String
        /// Seconds since 1970.
        package var time: Int64
        /// The time zone's offset from UTC, in minutes.
        package var offsetMinutes: Int
    }

    /// The root tree.
    package var tree: OID
    /// The parents, first parent first.
    package var parents: [OID]
    /// The author.
    package var author: Person
    /// The committer.
    package var committer: Person
    /// Where the message starts in the bytes.
    package var messageStart: Int

    /// Reads `bytes` as a commit.
    /// - Throws: ``FormatError`` when a header is missing, out of place or malformed.
    package init(_ bytes: UnsafeRawBufferPointer) throws(FormatError) {
        var at = 0
        func line() throws(FormatError) -> Slice<UnsafeRawBufferPointer> {
            guard at < bytes.count else { throw FormatError(.commit, "it ends before its message") }
            let end = bytes[at...].firstIndex(of: 0x0A) ?? bytes.count
            defer { at = end + 1 }
            return bytes[at..<end]
        }
        func id(after key: String, in text: Slice<UnsafeRawBufferPointer>) -> OID? {
            guard text.count == key.utf8.count + 41, text.starts(with: key.utf8), text[text.startIndex + key.utf8.count] == 0x20 else { return nil }
            return OID(hex: String(decoding: text.dropFirst(key.utf8.count + 1), as: UTF8.self))
        }
        guard let tree = id(after: "tree", in: try line()) else { throw FormatError(.commit, "it does not start with its tree") }
        var parents: [OID] = []
        var next = try line()
        while let parent = id(after: "parent", in: next) {
            parents.append(parent)
            next = try line()
        }
        guard next.starts(with: "author ".utf8), let author = Self.person(next.dropFirst("author ".utf8.count)) else {
            throw FormatError(.commit, "its author is missing or malformed")
        }
        let committerLine = try line()
        guard committerLine.starts(with: "committer ".utf8), let committer = Self.person(committerLine.dropFirst("committer ".utf8.count)) else {
            throw FormatError(.commit, "its committer is missing or malformed")
        }
        // Other headers (an encoding, a signature continued on lines starting with a space), then the empty line.
        while true {
            let header = try line()
            if header.isEmpty { break }
        }
        self.tree = tree
        self.parents = parents
        self.author = author
        self.committer = committer
        messageStart = min(at, bytes.count)
    }

    /// The bytes of a commit as git (and libgit2) writes it: `tree`, `parent` lines, `author`,
    /// `committer`, `encoding` when given, an empty line, then `message` as it is.
    /// - Throws: ``FormatError`` when a name or an address holds `<`, `>`, a line break or a
    ///   NUL, which would break the commit's lines (names are trimmed of spaces first, as
    ///   libgit2 trims them), or when a time zone is 100 hours or more from UTC.
    package static func bytes(
        tree: OID, parents: [OID], author: Person, committer: Person, encoding: String? = nil, message: String
    ) throws(FormatError) -> [UInt8] {
        var text = "tree \(tree.hex)\n"
        for parent in parents { text += "parent \(parent.hex)\n" }
        text += try line("author", author) + line("committer", committer)
        if let encoding { text += "encoding \(encoding)\n" }
        return Array((text + "\n" + message).utf8)
    }

    private static func line(_ header: String, _ person: Person) throws(FormatError) -> String {
        let name = trimmed(person.name), email = trimmed(person.email)
        for field in [name, email] where field.unicodeScalars.contains(where: { "<>\n\0".unicodeScalars.contains($0) }) {
            throw FormatError(.commit, "a name or address holds '<', '>', a line break or a NUL: \(field.debugDescription)")
        }
        let offset = abs(person.offsetMinutes)
        guard offset / 60 < 100 else { throw FormatError(.commit, "a time zone \(person.offsetMinutes) minutes from UTC does not fit in ±hhmm") }
        let zone = (person.offsetMinutes < 0 ? "-" : "+") + String(format2: offset / 60) + String(format2: offset % 60)
        return "\(header) \(name) <\(email)> \(person.time) \(zone)\n"
    }

    private static func trimmed(_ text: String) -> String {
        var scalars = text.unicodeScalars[...]
        while let first = scalars.first, first == " " || first == "\t" { scalars = scalars.dropFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars = scalars.dropLast() }
        return String(scalars)
    }

    /// `Name <email> seconds ±hhmm`, read from its end: a name may hold anything but `<`.
    private static func person(_ text: Slice<UnsafeRawBufferPointer>) -> Person? {
        guard let open = text.firstIndex(of: UInt8(ascii: "<")), let close = text[open...].firstIndex(of: UInt8(ascii: ">")) else { return nil }
        let fields = text[(close + 1)...].split(separator: 0x20)
        guard fields.count == 2, let time = Int64(String(decoding: fields[0], as: UTF8.self)), fields[1].count == 5,
            let sign = fields[1].first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-"),
            let zone = Int(String(decoding: fields[1].dropFirst(), as: UTF8.self))
        else { return nil }
        let minutes = (zone / 100) * 60 + zone % 100
        var name = text[text.startIndex..<open]
        if name.last == 0x20 { name = name.dropLast() }
        return Person(
            name: String(decoding: name, as: UTF8.self), email: String(decoding: text[(open + 1)..<close], as: UTF8.self),
            time: time, offsetMinutes: sign == UInt8(ascii: "-") ? -minutes : minutes)
    }
}

extension String {
    /// `value` in two decimal digits (`7` → `07`).
    fileprivate init(format2 value: Int) {
        self = value < 10 ? "0\(value)" : "\(value)"
    }
}
