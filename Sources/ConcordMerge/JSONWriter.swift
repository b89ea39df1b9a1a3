/// Writes a JSON value in a style, copying unchanged parts from source texts byte for byte, and
/// writing conflict markers around conflicting members and elements when asked.
struct JSONWriter {
    /// A parsed text whose unchanged parts can be copied.
    struct Source {
        var bytes: [UInt8]
        var syntax: JSONSyntax
    }

    /// A conflict the writer shows with markers: the value at `path` in each side (nil: absent).
    struct Conflict {
        var ours: JSONValue?
        var theirs: JSONValue?
    }

    var style: JSONStyle
    var conflicts: [JSONPath: Conflict] = [:]
    var oursLabel = "current"
    var theirsLabel = "other"
    var idKeys: [String] = []
    private(set) var output: [UInt8] = []

    init(style: JSONStyle) {
        self.style = style
    }

    mutating func write(_ value: JSONValue, sources: [Source]) {
        write(value, depth: 0, path: JSONPath(), candidates: sources.map { ($0.bytes, Optional($0.syntax)) })
    }

    private typealias Candidate = (bytes: [UInt8], syntax: JSONSyntax?)

    private mutating func append(_ text: String) {
        output.append(contentsOf: text.utf8)
    }

    private mutating func newline(depth: Int) {
        append(style.newline)
        if let indent = style.indent { for _ in 0..<depth { append(indent) } }
    }

    private mutating func write(_ value: JSONValue, depth: Int, path: JSONPath, candidates: [Candidate]) {
        for candidate in candidates {
            if let syntax = candidate.syntax, syntax.value == value, !conflicts.keys.contains(where: { $0.starts(with: path) }) {
                if case .object = value, !sameOrder(syntax.value, value) { continue }
                output.append(contentsOf: candidate.bytes[syntax.range])
                return
            }
        }
        switch value {
        case .null: append("null")
        case let .bool(flag): append(flag ? "true" : "false")
        case let .number(text): append(text)
        case let .string(text): writeString(text)
        case let .array(elements):
            guard !elements.isEmpty else { append("[]"); return }
            let children = candidates.map { candidate in
                JSONWriter.elementChildren(of: candidate.syntax, matching: elements, idKeys: idKeys)
            }
            writeContainer(open: "[", close: "]", count: elements.count, depth: depth) { index in
                let childPath = path.appending(.index(index))
                let childCandidates = candidates.indices.map { (candidates[$0].bytes, children[$0][index]) }
                return (nil, elements[index], childPath, childCandidates)
            }
        case let .object(members):
            guard !members.isEmpty else { append("{}"); return }
            writeContainer(open: "{", close: "}", count: members.count, depth: depth) { index in
                let member = members[index]
                let childCandidates = candidates.map { ($0.bytes, $0.syntax?.child(forKey: member.key)) }
                return (member.key, member.value, path.appending(.key(member.key)), childCandidates)
            }
        }
    }

    private func sameOrder(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
        guard case let .object(a) = lhs, case let .object(b) = rhs else { return true }
        return a.map(\.key) == b.map(\.key)
    }

    /// For each element of `elements`, the source element it came from: by id when the elements
    /// carry one, else an equal element, else the element at the same index.
    private static func elementChildren(of syntax: JSONSyntax?, matching elements: [JSONValue], idKeys: [String]) -> [JSONSyntax?] {
        guard let syntax, case .array = syntax.value else { return Array(repeating: nil, count: elements.count) }
        let sourceElements = syntax.children
        if let key = JSONMerger.idKey(in: [elements, sourceElements.map(\.value)], candidates: idKeys) {
            var byID: [JSONValue: JSONSyntax] = [:]
            for child in sourceElements { if let id = child.value[key] { byID[id] = child } }
            return elements.map { element in element[key].flatMap { byID[$0] } }
        }
        var unused: [JSONValue: [Int]] = [:]
        for (index, child) in sourceElements.enumerated().reversed() { unused[child.value, default: []].append(index) }
        return elements.enumerated().map { index, element in
            if let match = unused[element]?.popLast() { return sourceElements[match] }
            return index < sourceElements.count ? sourceElements[index] : nil
        }
    }

    private typealias Entry = (key: String?, value: JSONValue, path: JSONPath, candidates: [Candidate])

    private mutating func writeContainer(
        open: String, close: String, count: Int, depth: Int, entry: (Int) -> Entry
    ) {
        append(open)
        guard style.indent != nil else {
            for index in 0..<count {
                if index > 0 { append(style.comma) }
                let item = entry(index)
                writeEntry(item, depth: depth + 1, value: item.value)
            }
            append(close)
            return
        }
        for index in 0..<count {
            let item = entry(index)
            let last = index == count - 1
            if let conflict = conflicts[item.path] {
                append(style.newline)
                append("<<<<<<< \(oursLabel)")
                if let ours = conflict.ours {
                    newline(depth: depth + 1)
                    writeEntry(item, depth: depth + 1, value: ours, plain: true)
                    if !last { append(",") }
                }
                append(style.newline)
                append("=======")
                if let theirs = conflict.theirs {
                    newline(depth: depth + 1)
                    writeEntry(item, depth: depth + 1, value: theirs, plain: true)
                    if !last { append(",") }
                }
                append(style.newline)
                append(">>>>>>> \(theirsLabel)")
                continue
            }
            newline(depth: depth + 1)
            writeEntry(item, depth: depth + 1, value: item.value)
            if !last { append(",") }
        }
        newline(depth: depth)
        append(close)
    }

    private mutating func writeEntry(_ item: Entry, depth: Int, value: JSONValue, plain: Bool = false) {
        if let key = item.key {
            writeString(key)
            append(style.colon)
        }
        if plain {
            let saved = conflicts
            conflicts = [:]
            write(value, depth: depth, path: item.path, candidates: item.candidates)
            conflicts = saved
        } else {
            write(value, depth: depth, path: item.path, candidates: item.candidates)
        }
    }

    private mutating func writeString(_ text: String) {
        output.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case 0x22: append("\\\"")
            case 0x5C: append("\\\\")
            case 0x0A: append("\\n")
            case 0x0D: append("\\r")
            case 0x09: append("\\t")
            case 0x08: append("\\b")
            case 0x0C: append("\\f")
            case 0..<0x20:
                let hex = String(byte, radix: 16)
                append("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
