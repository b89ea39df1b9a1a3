internal import GitFormat

extension FuzzTarget {
    /// A commit object's bytes. ``CommitObject`` must accept exactly what a plain reading of git's
    /// shape accepts (`tree`, `parent` lines, `author`, `committer`, other headers, an empty
    /// line), give the same tree and parents, and what it reads must write back
    /// (``CommitObject/bytes(tree:parents:author:committer:encoding:message:)``) to a commit
    /// that reads the same. ``MessageTrailers`` over the message (any key prefix: the input's
    /// first byte picks `Concord-` or none) must give, in order, exactly the `Key: value` lines
    /// of the last paragraph whose key has the prefix, trimmed of spaces.
    static func commit(_ raw: UnsafeRawBufferPointer) throws(FuzzFailure) {
        let bytes = Array(raw)
        let read = Result { () throws(FormatError) in try CommitObject(raw) }
        let model = commitModel(bytes)
        switch (read, model) {
        case let (.success(commit), .some(expected)):
            try expect(commit.tree == expected.tree && commit.parents == expected.parents, "read tree and parents that the bytes do not hold")
            try expect(commit.messageStart == expected.messageStart, "the message starts at \(commit.messageStart), not \(expected.messageStart)")
            let message = String(decoding: bytes[commit.messageStart...], as: UTF8.self)
            if let written = try? CommitObject.bytes(tree: commit.tree, parents: commit.parents, author: commit.author, committer: commit.committer, message: message) {
                let reread: CommitObject
                do {
                    reread = try written.withUnsafeBytes { try CommitObject($0) }
                } catch {
                    throw FuzzFailure("a commit written from what was read does not read back")
                }
                try expect(
                    reread.tree == commit.tree && reread.parents == commit.parents && reread.author == trimmed(commit.author)
                        && reread.committer == trimmed(commit.committer), "a commit written back reads differently")
            }
        case (.failure, nil):
            break
        case (.success, nil):
            throw FuzzFailure("accepted a commit git's shape refuses")
        case let (.failure(error), .some):
            throw FuzzFailure("refused a commit of git's shape: \(error)")
        }
        let prefix = bytes.first.map { $0 & 1 == 0 ? "Concord-" : "" } ?? ""
        let pairs = bytes.withUnsafeBufferPointer { MessageTrailers.pairs(in: $0, keyPrefix: prefix) }
        let expectedPairs = trailersModel(bytes, prefix: Array(prefix.utf8))
        try expect(pairs.map(\.key) == expectedPairs.map(\.key) && pairs.map(\.value) == expectedPairs.map(\.value), "trailers differ from the last paragraph's lines")
    }

    /// `person` with its name and address trimmed of spaces and tabs, as a commit is written.
    private static func trimmed(_ person: CommitObject.Person) -> CommitObject.Person {
        func trim(_ text: String) -> String {
            var scalars = text.unicodeScalars[...]
            while let first = scalars.first, first == " " || first == "\t" { scalars = scalars.dropFirst() }
            while let last = scalars.last, last == " " || last == "\t" { scalars = scalars.dropLast() }
            return String(scalars)
        }
        var person = person
        person.name = trim(person.name)
        person.email = trim(person.email)
        return person
    }

    /// What git's shape makes of `bytes`: the tree, the parents and where the message starts;
    /// nil when it is not a commit.
    private static func commitModel(_ bytes: [UInt8]) -> (tree: OID, parents: [OID], messageStart: Int)? {
        var lines: [ArraySlice<UInt8>] = []
        var start = 0
        var messageStart: Int?
        while start < bytes.count {
            guard let end = bytes[start...].firstIndex(of: 0x0A) else { return nil }
            let line = bytes[start..<end]
            start = end + 1
            if line.isEmpty {
                messageStart = start
                break
            }
            lines.append(line)
        }
        guard let messageStart, lines.count >= 3 else { return nil }
        func id(_ line: ArraySlice<UInt8>, _ key: String) -> OID? {
            guard line.count == key.utf8.count + 41, line.starts(with: Array((key + " ").utf8)) else { return nil }
            return OID(hex: String(decoding: line.dropFirst(key.utf8.count + 1), as: UTF8.self))
        }
        guard let tree = id(lines[0], "tree") else { return nil }
        var index = 1
        var parents: [OID] = []
        while index < lines.count, let parent = id(lines[index], "parent") {
            parents.append(parent)
            index += 1
        }
        guard index + 1 < lines.count, person(lines[index], "author "), person(lines[index + 1], "committer ") else { return nil }
        return (tree, parents, messageStart)
    }

    /// True when `line` is `key` then `Name <email> seconds ±hhmm`.
    private static func person(_ line: ArraySlice<UInt8>, _ key: String) -> Bool {
        guard line.starts(with: Array(key.utf8)) else { return false }
        let text = line.dropFirst(key.utf8.count)
        guard let open = text.firstIndex(of: UInt8(ascii: "<")), let close = text[open...].firstIndex(of: UInt8(ascii: ">")) else { return false }
        let fields = text[(close + 1)...].split(separator: 0x20)
        guard fields.count == 2, Int64(String(decoding: fields[0], as: UTF8.self)) != nil, fields[1].count == 5 else { return false }
        guard let sign = fields[1].first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else { return false }
        return Int(String(decoding: fields[1].dropFirst(), as: UTF8.self)) != nil
    }

    /// The `Key: value` lines of the last of two or more paragraphs, by splitting the text.
    private static func trailersModel(_ bytes: [UInt8], prefix: [UInt8]) -> [(key: String, value: String)] {
        var paragraphs: [ArraySlice<UInt8>] = []
        var start = 0, index = 0
        while index <= bytes.count {
            if index == bytes.count || (bytes[index] == 0x0A && index + 1 < bytes.count && bytes[index + 1] == 0x0A) {
                if index > start { paragraphs.append(bytes[start..<index]) }
                if index == bytes.count { break }
                index += 2
                start = index
            } else {
                index += 1
            }
        }
        guard paragraphs.count > 1, let last = paragraphs.last else { return [] }
        func trimmed(_ slice: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
            var slice = slice
            while slice.first == 0x20 { slice = slice.dropFirst() }
            while slice.last == 0x20 { slice = slice.dropLast() }
            return slice
        }
        return last.split(separator: 0x0A, omittingEmptySubsequences: false).compactMap { line in
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return nil }
            let key = trimmed(line[..<colon])
            guard key.starts(with: prefix) else { return nil }
            return (String(decoding: key, as: UTF8.self), String(decoding: trimmed(line[(colon + 1)...]), as: UTF8.self))
        }
    }
}
