internal import GitFormat

/// A JSON value that keeps what a round trip should keep: the order of object members and the
/// exact text of numbers.
///
/// Two values are equal when they mean the same JSON: objects compare member by member whatever
/// their order, numbers compare by their text (`1` and `1.0` differ, as a person editing the file
/// would see them differ), strings and member names by their bytes (RFC 8259: `café` with `é`
/// and with `e` and a combining accent are two strings, though Swift's `==` takes them for one).
public enum JSONValue: Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, as written (for example `1.50` or `-2e10`).
    case number(String)
    /// A string, unescaped.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object: its members in order, each key once.
    case object([JSONMember])

    /// The member named `key` (the same bytes) of an object; nil for other values or when there is none.
    public subscript(key: String) -> JSONValue? {
        guard case let .object(members) = self else { return nil }
        return members.first { $0.key.sameBytes(as: key) }?.value
    }
}

/// One member of a JSON object.
///
/// Two members are equal when their names hold the same bytes and their values are equal: names
/// that differ by Unicode normalization alone are two names, as RFC 8259 compares them.
public struct JSONMember: Sendable, Hashable {
    /// The member's name.
    public var key: String
    /// The member's value.
    public var value: JSONValue

    /// Creates a member.
    public init(key: String, value: JSONValue) {
        self.key = key
        self.value = value
    }

    /// True when both names hold the same bytes and both values are equal.
    public static func == (lhs: JSONMember, rhs: JSONMember) -> Bool {
        lhs.key.sameBytes(as: rhs.key) && lhs.value == rhs.value
    }

    /// Hashes the name's bytes and the value, consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        key.hashBytes(into: &hasher)
        hasher.combine(value)
    }
}

extension JSONValue: Hashable {
    /// True when both mean the same JSON: objects compare member by member whatever their
    /// order, numbers by their text.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case let (.bool(a), .bool(b)): a == b
        case let (.number(a), .number(b)): a == b
        case let (.string(a), .string(b)): a.sameBytes(as: b)
        case let (.array(a), .array(b)): a == b
        case let (.object(a), .object(b)): JSONValue.sameMembers(a, b)
        default: false
        }
    }

    private static func sameMembers(_ lhs: [JSONMember], _ rhs: [JSONMember]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        if lhs == rhs { return true }
        var values: [ExactText: JSONValue] = [:]
        for member in lhs { values[ExactText(member.key)] = member.value }
        return rhs.allSatisfy { values[ExactText($0.key)] == $0.value }
    }

    /// Hashes consistently with `==`: an object's members count whatever their order.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case let .bool(value): hasher.combine(1); hasher.combine(value)
        case let .number(text): hasher.combine(2); hasher.combine(text)
        case let .string(text):
            hasher.combine(3)
            text.hashBytes(into: &hasher)
        case let .array(elements): hasher.combine(4); hasher.combine(elements)
        case let .object(members):
            hasher.combine(5)
            hasher.combine(members.reduce(0) { $0 &+ $1.hashValue })
        }
    }
}
