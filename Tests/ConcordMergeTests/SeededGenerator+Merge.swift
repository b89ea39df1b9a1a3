import ConcordMerge
import Foundation
import TestSupport

/// Texts and JSON values drawn from a ``SeededGenerator``, for the merge laws and the fuzz tests.
extension SeededGenerator {
    // MARK: Text

    /// Lines drawn from a small vocabulary, so that repeats and accidental matches happen.
    mutating func lines(count: Int) -> [String] {
        (0..<count).map { _ in pick(["alpha", "beta", "gamma", "delta", "", "}", "end", "x = 1", "log: saved"]) + (chance(0.5) ? "" : "\(Int.random(in: 0..<40, using: &self))") }
    }

    /// A copy of `lines` with a few lines inserted, removed or replaced.
    mutating func edited(_ lines: [String]) -> [String] {
        var result = lines
        for _ in 0..<Int.random(in: 1...4, using: &self) {
            let index = Int.random(in: 0...result.count, using: &self)
            switch Int.random(in: 0..<3, using: &self) {
            case 0: result.insert(contentsOf: self.lines(count: Int.random(in: 1...3, using: &self)), at: index)
            case 1 where index < result.count: result.remove(at: index)
            default: if index < result.count { result[index] = "changed \(next() % 1000)" }
            }
        }
        return result
    }

    static func text(_ lines: [String]) -> String {
        lines.map { $0 + "\n" }.joined()
    }

    // MARK: JSON

    mutating func scalar() -> JSONValue {
        switch Int.random(in: 0..<5, using: &self) {
        case 0: .null
        case 1: .bool(chance(0.5))
        case 2: .number(pick(["0", "1", "-2", "3.5", "1e3", "42"]))
        default: .string(pick(["a", "b", "é", "tab\there", "quote\"", "line\nbreak", ""]))
        }
    }

    mutating func key() -> String {
        pick(["name", "version", "id", "items", "deps", "a", "b", "c", "zed", "meta", "tags"])
    }

    mutating func value(depth: Int) -> JSONValue {
        guard depth > 0, chance(0.6) else { return scalar() }
        if chance(0.55) {
            var members: [JSONMember] = []
            for _ in 0..<Int.random(in: 0...5, using: &self) {
                let key = key()
                if !members.contains(where: { $0.key == key }) { members.append(JSONMember(key: key, value: value(depth: depth - 1))) }
            }
            return .object(members)
        }
        if chance(0.4) {
            var used: Set<Int> = []
            let elements: [JSONValue] = (0..<Int.random(in: 0...4, using: &self)).compactMap { _ in
                let id = Int.random(in: 0..<10, using: &self)
                guard used.insert(id).inserted else { return nil }
                return .object([JSONMember(key: "id", value: .number("\(id)")), JSONMember(key: "v", value: scalar())])
            }
            return .array(elements)
        }
        return .array((0..<Int.random(in: 0...4, using: &self)).map { _ in value(depth: depth - 1) })
    }

    /// A copy of `value` with one random change somewhere inside.
    mutating func edited(_ value: JSONValue, depth: Int = 0) -> JSONValue {
        switch value {
        case var .object(members):
            if !members.isEmpty, chance(0.6) {
                let index = Int.random(in: 0..<members.count, using: &self)
                members[index].value = edited(members[index].value, depth: depth + 1)
                return .object(members)
            }
            if !members.isEmpty, chance(0.3) {
                members.remove(at: Int.random(in: 0..<members.count, using: &self))
                return .object(members)
            }
            let key = key() + (chance(0.5) ? "\(next() % 100)" : "")
            if members.contains(where: { $0.key == key }) { return .object(members) }
            members.insert(JSONMember(key: key, value: self.value(depth: 2)), at: Int.random(in: 0...members.count, using: &self))
            return .object(members)
        case var .array(elements):
            if !elements.isEmpty, chance(0.5) {
                let index = Int.random(in: 0..<elements.count, using: &self)
                let element = elements[index]
                if case .object = element, element["id"] != nil {
                    if let edited = editedKeepingID(element) { elements[index] = edited }
                } else {
                    elements[index] = edited(element, depth: depth + 1)
                }
                return .array(elements)
            }
            if let first = elements.first, case .object = first, first["id"] != nil {
                let id = JSONValue.number("\(100 + next() % 900)")
                if !elements.contains(where: { $0["id"] == id }) {
                    elements.append(.object([JSONMember(key: "id", value: id), JSONMember(key: "v", value: scalar())]))
                }
                return .array(elements)
            }
            elements.append(self.value(depth: 1))
            return .array(elements)
        default:
            return depth == 0 ? self.value(depth: 3) : scalar()
        }
    }

    private mutating func editedKeepingID(_ element: JSONValue) -> JSONValue? {
        guard case var .object(members) = element, let index = members.firstIndex(where: { $0.key == "v" }) else { return nil }
        members[index].value = scalar()
        return .object(members)
    }

    mutating func style() -> JSONStyle {
        pick([
            .standard, JSONStyle(indent: "    "), JSONStyle(indent: "\t"), JSONStyle(indent: nil, colon: ":", comma: ","),
            JSONStyle(indent: nil, colon: ": ", comma: ", "),
        ])
    }
}
