internal import ConcordMerge

extension FuzzTarget {
    /// ``GlobPattern``, which reads the patterns of `.concord/policies` and of package folders
    /// from the cloud. Input: two steering bytes, then a pattern and a path separated by the
    /// first zero byte (the whole rest is the path when there is none).
    ///
    /// A pattern without `/` answers for a path as the same pattern after `**/` does. Patterns
    /// made from the path answer as their syntax says: the path written with every character
    /// escaped matches it, and still does with one character turned into `?`, `[c]` or a POSIX
    /// class that holds it, with a run of a name turned into `*`, or folders into `**`; with that
    /// character turned into `[!c]` or into another character, it does not.
    static func glob(_ raw: UnsafeRawBufferPointer) throws(FuzzFailure) {
        var input = FuzzInput(raw)
        let steer = (input.number(bytes: 1), input.number(bytes: 1))
        let rest = input.rest()
        let separator = rest.firstIndex(of: 0)
        let path = String(decoding: separator.map { Array(rest[($0 + 1)...]) } ?? rest, as: UTF8.self)
        let components = path.unicodeScalars.split(separator: "/").map(Array.init)
        if let separator {
            let text = String(decoding: rest[..<separator], as: UTF8.self)
            let pattern = GlobPattern(text)
            let matches = pattern.matches(path)
            if !text.isEmpty, !text.unicodeScalars.contains("/"), !components.isEmpty {
                let anywhere = GlobPattern("**/" + text)
                try expect(matches == anywhere.matches(path), "\(pattern) answered \(matches) for \(path), and \(anywhere) did not")
            }
        }
        guard !components.isEmpty else { return }

        func escaped(_ scalar: Unicode.Scalar) -> String { "\\" + String(scalar) }
        func literal(_ name: ArraySlice<Unicode.Scalar>) -> String { name.map(escaped).joined() }
        func check(_ written: [String], _ expected: Bool) throws(FuzzFailure) {
            let pattern = GlobPattern("/" + written.joined(separator: "/"))
            try expect(pattern.matches(path) == expected, "\(pattern) answered \(!expected) for \(path)")
        }
        let escapedPath = components.map { literal($0[...]) }
        try check(escapedPath, true)

        let index = steer.0 % components.count
        let name = components[index]
        let at = steer.1 % name.count
        let scalar = name[at]
        /// The path escaped, with the characters `start..<end` of the chosen name written as `middle`.
        func replacing(with middle: String, to end: Int = at + 1) -> [String] {
            var written = escapedPath
            written[index] = literal(name[..<at]) + middle + literal(name[end...])
            return written
        }
        try check(replacing(with: "?"), true)
        try check(replacing(with: "[\(escaped(scalar))]"), true)
        try check(replacing(with: "[!\(escaped(scalar))]"), false)
        var other = Unicode.Scalar(scalar.value + 1) ?? "0"
        if other == "/" { other = "0" }
        try check(replacing(with: escaped(other)), false)
        let classes: [(String, ClosedRange<Unicode.Scalar>)] = [("digit", "0"..."9"), ("lower", "a"..."z"), ("upper", "A"..."Z")]
        if let (className, _) = classes.first(where: { $0.1.contains(scalar) }) {
            try check(replacing(with: "[[:\(className):]]"), true)
        }
        try check(replacing(with: "*", to: at + steer.0 % (name.count - at + 1)), true)
        if components.count > 1 {
            let first = steer.1 % components.count
            let last = first + steer.0 % (components.count - first)
            try check(Array(escapedPath[..<first]) + ["**"] + Array(escapedPath[(last + 1)...]), true)
        }
    }
}
