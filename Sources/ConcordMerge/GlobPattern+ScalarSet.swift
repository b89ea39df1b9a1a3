extension GlobPattern {
    /// The characters of a bracket expression: ranges, POSIX classes, and whether it is their
    /// complement.
    struct ScalarSet: Hashable, Sendable {
        var ranges: [ClosedRange<UInt32>] = []
        var classes: [CharacterClass] = []
        var isNegated = false

        func contains(_ scalar: Unicode.Scalar) -> Bool {
            let inside = ranges.contains { $0.contains(scalar.value) } || classes.contains { $0.contains(scalar) }
            return inside != isNegated
        }

        /// The index of the first `]` at or after each index of `scalars` (`scalars.count` when
        /// none), for the POSIX classes of ``bracket(_:from:closings:)``.
        static func closings(_ scalars: [Unicode.Scalar]) -> [Int] {
            var closings = [Int](repeating: scalars.count, count: scalars.count + 1)
            for index in scalars.indices.reversed() {
                closings[index] = scalars[index] == "]" ? index : closings[index + 1]
            }
            return closings
        }

        /// The set of the bracket expression opening at `start`, and the index after its `]`;
        /// nil when it is not closed (the `[` is then literal). A `]` first in the set is a
        /// member; `\` makes the next character one. `[:` opens a class when the first `]` after
        /// it follows a `:`, as in git; an unknown class adds nothing.
        static func bracket(_ scalars: [Unicode.Scalar], from start: Int, closings: [Int]) -> (ScalarSet, Int)? {
            var set = ScalarSet()
            var index = start + 1
            if index < scalars.count, scalars[index] == "!" || scalars[index] == "^" {
                set.isNegated = true
                index += 1
            }
            var first = true
            while index < scalars.count {
                var scalar = scalars[index]
                if scalar == "]" && !first { return (set, index + 1) }
                first = false
                if scalar == "[", index + 1 < scalars.count, scalars[index + 1] == ":" {
                    let close = closings[index + 2]
                    if close < scalars.count, close >= index + 3, scalars[close - 1] == ":" {
                        let name = String(String.UnicodeScalarView(scalars[(index + 2)..<(close - 1)]))
                        if let named = CharacterClass(rawValue: name) { set.classes.append(named) }
                        index = close + 1
                        continue
                    }
                }
                if scalar == "\\", index + 1 < scalars.count {
                    index += 1
                    scalar = scalars[index]
                }
                if index + 2 < scalars.count, scalars[index + 1] == "-", scalars[index + 2] != "]" {
                    var upper = scalars[index + 2]
                    var skip = 3
                    if upper == "\\", index + 3 < scalars.count {
                        upper = scalars[index + 3]
                        skip = 4
                    }
                    if scalar.value <= upper.value { set.ranges.append(scalar.value...upper.value) }
                    index += skip
                    continue
                }
                set.ranges.append(scalar.value...scalar.value)
                index += 1
            }
            return nil
        }
    }

    /// The POSIX classes of `[[:name:]]`, for ASCII as git reads them.
    enum CharacterClass: String, Hashable, Sendable {
        case alpha, digit, alnum, upper, lower, space, blank, punct, xdigit, cntrl, print, graph

        func contains(_ scalar: Unicode.Scalar) -> Bool {
            guard scalar.isASCII else { return false }
            let value = UInt8(scalar.value)
            let isDigit = (48...57).contains(value), isUpper = (65...90).contains(value), isLower = (97...122).contains(value)
            switch self {
            case .alpha: return isUpper || isLower
            case .digit: return isDigit
            case .alnum: return isUpper || isLower || isDigit
            case .upper: return isUpper
            case .lower: return isLower
            case .space: return value == 32 || (9...13).contains(value)
            case .blank: return value == 32 || value == 9
            case .punct: return (33...47).contains(value) || (58...64).contains(value) || (91...96).contains(value) || (123...126).contains(value)
            case .xdigit: return isDigit || (65...70).contains(value) || (97...102).contains(value)
            case .cntrl: return value < 32 || value == 127
            case .print: return (32...126).contains(value)
            case .graph: return (33...126).contains(value)
            }
        }
    }
}
