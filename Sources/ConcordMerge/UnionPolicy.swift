import FoundationEssentials

/// Merges append-only text such as change logs: every line any version added, each once,
/// minus the lines a version removed from the common ancestor.
///
/// Lines are told apart by their text and by how many times the same text came before them,
/// so a log with repeated lines keeps its repeats. The order is the same on every device: the
/// ancestor's surviving lines in their order, then each version's new lines, in canonical version
/// order, placed before the next line that version shares with the result (at the end when none).
/// Two devices appending to the same log therefore get the earlier device's lines first.
/// It never needs a person for text; binary input, a package or a deletion racing an edit does.
public struct UnionPolicy: MergePolicy {
    /// Creates the policy.
    public init() {}

    /// `union` on the command line and in `.concord/policies`.
    public var name: String { "union" }

    /// Every line any version added, each once, minus the lines a version removed (see ``UnionPolicy``).
    public func merge(base: DocumentContent?, versions: [MergeVersion]) -> MergeOutcome {
        let versions = MergeInputs.canonical(versions)
        let baseText: [UInt8]
        switch base {
        case nil: baseText = []
        case let .file(data)?:
            guard TextMergePolicy.isText(data) else {
                return .needsPerson(reason: "the common ancestor is not UTF-8 text", markedUp: nil)
            }
            baseText = Array(data)
        case .package?:
            return .needsPerson(reason: "the common ancestor is a package, not text", markedUp: nil)
        }
        let (pairs, refusal) = MergeInputs.texts(of: versions)
        if let refusal { return refusal }
        let texts = pairs.map { Array($0.text) }
        if let outcome = MergeInputs.trivialOutcome(base: base, versions: versions) { return outcome }
        if let deleted = versions.first(where: { $0.content == nil }) {
            return .needsPerson(
                reason: "\(deleted.deviceName) deleted the document while another device changed it",
                markedUp: MergeInputs.current(of: versions)?.content)
        }
        return .merged(.file(Data(UnionPolicy.union(base: baseText, versions: texts))))
    }

    /// A line told apart from equal lines by the number of equal lines before it; the text is a
    /// number standing for the line's bytes, the same in every version.
    private struct LineID: Hashable {
        var text: Int
        var occurrence: Int
    }

    /// Numbers the distinct lines of all texts, so that lines compare as integers.
    private struct Lines {
        var numbers: [ArraySlice<UInt8>: Int] = [:]
        var texts: [ArraySlice<UInt8>] = []

        mutating func lines(_ text: [UInt8]) -> [LineID] {
            var result: [LineID] = []
            var occurrences: [Int: Int] = [:]
            var start = 0
            func add(_ line: ArraySlice<UInt8>) {
                let number: Int
                if let known = numbers[line] {
                    number = known
                } else {
                    number = texts.count
                    numbers[line] = number
                    texts.append(line)
                }
                let occurrence = occurrences[number, default: 0]
                occurrences[number] = occurrence + 1
                result.append(LineID(text: number, occurrence: occurrence))
            }
            for index in text.indices where text[index] == UInt8(ascii: "\n") {
                add(text[start..<index])
                start = index + 1
            }
            if start < text.count { add(text[start...]) }
            return result
        }
    }

    static func union(base: [UInt8], versions: [[UInt8]]) -> [UInt8] {
        var numbering = Lines()
        let sides = versions.map { numbering.lines($0) }
        let sideSets = sides.map(Set.init)
        let baseLines = numbering.lines(base)
        var result = baseLines.filter { line in sideSets.allSatisfy { $0.contains(line) } }
        var present = Set(result)
        let removed = Set(baseLines).subtracting(present)
        for side in sides {
            var runs: [LineID?: [LineID]] = [:]
            var pending: [LineID] = []
            for line in side where !removed.contains(line) {
                if present.contains(line) {
                    if !pending.isEmpty { runs[line, default: []].append(contentsOf: pending) }
                    pending = []
                } else {
                    pending.append(line)
                }
            }
            if !pending.isEmpty { runs[nil, default: []].append(contentsOf: pending) }
            if runs.isEmpty { continue }
            var next: [LineID] = []
            next.reserveCapacity(result.count + side.count)
            for line in result {
                if let run = runs[line] { next.append(contentsOf: run) }
                next.append(line)
            }
            if let run = runs[nil] { next.append(contentsOf: run) }
            for line in next where !present.contains(line) { present.insert(line) }
            result = next
        }
        let endsWithNewline = ([base] + versions).contains { $0.last == UInt8(ascii: "\n") }
        var output: [UInt8] = []
        output.reserveCapacity(result.reduce(0) { $0 + numbering.texts[$1.text].count + 1 })
        for (index, line) in result.enumerated() {
            output.append(contentsOf: numbering.texts[line.text])
            if index < result.count - 1 || endsWithNewline { output.append(UInt8(ascii: "\n")) }
        }
        return output
    }
}
