internal import GitFormat

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

    /// Writes `value`. Where a part equals the same part in `sources`, it is copied from the first
    /// such source, unless that copy is laid out as in `base` and another source changed only the
    /// layout: then the changed layout is copied.
    mutating func write(_ value: JSONValue, sources: [Source], base: Source? = nil) {
        let baseCandidate = base.map { ($0.bytes, Optional($0.syntax)) }
        write(
            value, depth: 0, path: JSONPath(), candidates: sources.map { ($0.bytes, Optional($0.syntax)) },
            base: baseCandidate)
    }

    private typealias Candidate = (bytes: [UInt8], syntax: JSONSyntax?)

    private mutating func append(_ text: String) {
        output.append(contentsOf: text.utf8)
    }

    private mutating func newline(depth: Int) {
        append(style.newline)
        if let indent = style.indent { for _ in 0..<depth { append(indent) } }
    }

    private mutating func write(_ value: JSONValue, depth: Int, path: JSONPath, candidates: [Candidate], base: Candidate?) {
        if conflicts.isEmpty || !conflicts.keys.contains(where: { $0.starts(with: path) }) {
            let equal = candidates.filter { candidate in
                guard let syntax = candidate.syntax, syntax.value == value else { return false }
                if case .object = value { return sameOrder(syntax.value, value) }
                return true
            }
            if var chosen = equal.first, var chosenSyntax = chosen.syntax {
                var copies = true
                if let base, let baseSyntax = base.syntax {
                    let baseText = base.bytes[baseSyntax.range]
                    func text(_ candidate: Candidate) -> ArraySlice<UInt8>? { candidate.syntax.map { candidate.bytes[$0.range] } }
                    if baseSyntax.value == value {
                        if text(chosen) == baseText, let changed = equal.first(where: { text($0).map { $0 != baseText } ?? false }),
                            let changedSyntax = changed.syntax
                        {
                            chosen = changed
                            chosenSyntax = changedSyntax
                        }
                    } else if value.isContainer {
                        copies = !candidates.contains { candidate in
                            candidate.syntax?.value == baseSyntax.value && text(candidate) != baseText
                        }
                    }
                }
                if copies {
                    output.append(contentsOf: chosen.bytes[chosenSyntax.range])
                    return
                }
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
            let baseChildren = JSONWriter.elementChildren(of: base?.syntax, matching: elements, idKeys: idKeys)
            writeContainer(open: "[", close: "]", count: elements.count, depth: depth) { index in
                let childPath = path.appending(.index(index))
                let childCandidates = candidates.indices.map { (candidates[$0].bytes, children[$0][index]) }
                let childBase = base.map { ($0.bytes, baseChildren[index]) }
                return (nil, elements[index], childPath, childCandidates, childBase)
            }
        case let .object(members):
            guard !members.isEmpty else { append("{}"); return }
            writeContainer(open: "{", close: "}", count: members.count, depth: depth) { index in
                let member = members[index]
                let childCandidates = candidates.map { ($0.bytes, $0.syntax?.child(forKey: member.key)) }
                let childBase = base.map { ($0.bytes, $0.syntax?.child(forKey: member.key)) }
                return (member.key, member.value, path.appending(.key(member.key)), childCandidates, childBase)
            }
        }
    }

    private func sameOrder(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
        guard case let .object(a) = lhs, case let .object(b) = rhs else { return true }
        return a.elementsEqual(b) { $0.key.sameBytes(as: $1.key) }
    }

    /// For each element of `elements`, the source element it came from: by id when the elements
    /// carry one, else an equal element, else the element at the same index.
    private static func elementChildren(of syntax: JSONSyntax?, matching elements: [JSONValue], idKeys: [String]) -> [JSONSyntax?] {
        guard let syntax, case .array = syntax.value else { return Array(repeating: nil, count: elements.count) }
        let sourceElements = syntax.children
        if let key = JSONMerger.idKey(in: [elements, sourceElements.map(\.value)], candidates: idKeys) {
            var byID: [JSONValue: JSONSyntax] = [:]
            byID.reserveCapacity(sourceElements.count)
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

    private typealias Entry = (key: String?, value: JSONValue, path: JSONPath, candidates: [Candidate], base: Candidate?)

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
            write(value, depth: depth, path: item.path, candidates: item.candidates, base: item.base)
            conflicts = saved
        } else {
            write(value, depth: depth, path: item.path, candidates: item.candidates, base: item.base)
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

extension JSONValue {
    fileprivate var isContainer: Bool {
        switch self {
        case .array, .object: true
        default: false
        }
    }
}
