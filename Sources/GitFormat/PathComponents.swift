extension String {
    /// The parts of a slash-separated path (a tree path, a reference name), split at each `/`
    /// byte as git splits them. `slashSeparated()` compares whole characters (grapheme
    /// breaking at every step: about 8,000 instructions for a 30-byte path, a sixth of an
    /// import's work); this compares bytes, and a `/` is never part of another character's bytes.
    /// - Parameter omittingEmpty: false keeps the empty parts around a leading, trailing or
    ///   doubled `/` (and gives one empty part for an empty path), as `split` would.
    package func slashSeparated(omittingEmpty: Bool = true) -> [Substring] {
        self[...].slashSeparated(omittingEmpty: omittingEmpty)
    }
}

extension Substring {
    /// ``Swift/String/slashSeparated(omittingEmpty:)`` of a part of a string.
    package func slashSeparated(omittingEmpty: Bool = true) -> [Substring] {
        var parts: [Substring] = []
        parts.reserveCapacity(8)  // deeper paths are rare; growing from empty was half the cost
        let utf8 = self.utf8
        var start = utf8.startIndex, index = start
        while index != utf8.endIndex {
            if utf8[index] == UInt8(ascii: "/") {
                if !omittingEmpty || start != index { parts.append(Substring(utf8[start..<index])) }
                start = utf8.index(after: index)
            }
            utf8.formIndex(after: &index)
        }
        if !omittingEmpty || start != utf8.endIndex { parts.append(Substring(utf8[start...])) }
        return parts
    }
}
