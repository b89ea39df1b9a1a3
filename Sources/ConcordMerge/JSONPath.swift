internal import GitFormat

/// Where a value sits inside a JSON document: the member names and array indices leading to it.
struct JSONPath: Hashable, Sendable, CustomStringConvertible {
    /// A member name (compared by its bytes, as JSON tells names apart) or an array index.
    enum Component: Hashable, Sendable {
        case key(String)
        case index(Int)

        static func == (lhs: Component, rhs: Component) -> Bool {
            switch (lhs, rhs) {
            case let (.key(a), .key(b)): a.sameBytes(as: b)
            case let (.index(a), .index(b)): a == b
            default: false
            }
        }

        func hash(into hasher: inout Hasher) {
            switch self {
            case let .key(key): hasher.combine(0); key.hashBytes(into: &hasher)
            case let .index(index): hasher.combine(1); hasher.combine(index)
            }
        }
    }

    var components: [Component] = []

    func appending(_ component: Component) -> JSONPath {
        JSONPath(components: components + [component])
    }

    /// This path below `prefix`.
    func prefixed(by prefix: JSONPath) -> JSONPath {
        JSONPath(components: prefix.components + components)
    }

    func starts(with prefix: JSONPath) -> Bool {
        components.starts(with: prefix.components)
    }

    /// The path as people write it in JavaScript: `$.scripts.test`, `$.files[2]`, `$["a b"]`.
    var description: String {
        var text = "$"
        for component in components {
            switch component {
            case let .index(index): text += "[\(index)]"
            case let .key(key):
                let plain =
                    !key.isEmpty
                    && key.unicodeScalars.allSatisfy {
                        $0.properties.isAlphabetic || $0 == "_" || $0 == "$" || ("0"..."9").contains($0)
                    } && !("0"..."9").contains(key.unicodeScalars.first ?? "0")
                if plain {
                    text += ".\(key)"
                } else {
                    var writer = JSONWriter(style: .standard)
                    writer.write(.string(key), sources: [])
                    text += "[\(String(decoding: writer.output, as: UTF8.self))]"
                }
            }
        }
        return text
    }
}
