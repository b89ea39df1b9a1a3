internal import GitFormat

extension FuzzTarget {
    /// A reference file. Input: the file's bytes, read both as a loose reference and as
    /// `packed-refs`.
    ///
    /// ``References/loose(_:)`` must give the id a loose file holds (40 hexadecimal digits,
    /// then only newlines, returns or spaces), nil for a symbolic reference, and refuse
    /// anything else. ``References/packed(_:named:)``, asked for `refs/heads/main` and for the
    /// first name the file lists, must give the id of the last line naming it, and refuse a
    /// file with any malformed line: a line is empty, a `#` comment, `^` and 40 digits (a
    /// peeled tag), or 40 digits, a space and a name. ``References/symbolicTarget(_:)`` must give
    /// nil for a file that does not start with `ref:`, and otherwise either refuse it or give a
    /// name under `refs/` with no `..` component, no control character and no space.
    static func references(_ raw: UnsafeRawBufferPointer) throws(FuzzFailure) {
        let bytes = Array(raw)
        let loose = Result { () throws(FormatError) in try References.loose(bytes) }
        let expectedLoose = looseModel(bytes)
        try expect(answer(loose) == expectedLoose, "loose gave \(String(describing: answer(loose))) where the format gives \(String(describing: expectedLoose))")
        let symbolic = Result { () throws(FormatError) in try References.symbolicTarget(bytes) }
        if !bytes.starts(with: Array("ref:".utf8)) {
            try expect(answer(symbolic) == .some(nil), "symbolicTarget read a name in a file that does not start with ref:")
        } else if let name = answer(symbolic) ?? nil {
            try expect(
                name.hasPrefix("refs/") && !name.split(separator: "/").contains("..")
                    && !name.unicodeScalars.contains { $0.value < 0x21 || $0.value == 0x7F },
                "symbolicTarget gave \(name.debugDescription), not a reference's name")
        }

        let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
        let listed = lines.first { $0.count > 41 && $0.first != UInt8(ascii: "#") && $0.first != UInt8(ascii: "^") }.map { String(decoding: $0.dropFirst(41), as: UTF8.self) }
        for name in ["refs/heads/main"] + (listed.map { [$0] } ?? []) {
            let packed = Result { () throws(FormatError) in try References.packed(bytes, named: name) }
            let expected = packedModel(lines, named: Array(name.utf8))
            try expect(
                answer(packed) == expected,
                "packed(named: \(name.debugDescription)) gave \(String(describing: answer(packed))) where the format gives \(String(describing: expected))")
        }
    }

    /// The value of `result`, nil for an error (a value that is itself optional stays apart
    /// from an error, as `try?` would not keep it).
    private static func answer<Value>(_ result: Result<Value, FormatError>) -> Value? {
        try? result.get()
    }

    /// What a loose reference file holds: `.some(nil)` for a symbolic one, nil when malformed.
    private static func looseModel(_ bytes: [UInt8]) -> OID?? {
        if bytes.starts(with: Array("ref:".utf8)) { return .some(nil) }
        var end = bytes.count
        while end > 0, [0x0A, 0x0D, 0x20].contains(bytes[end - 1]) { end -= 1 }
        return id(bytes[0..<end]).map { .some($0) }
    }

    /// What `packed-refs` gives `name`: `.some(nil)` when it does not list it, nil when malformed.
    private static func packedModel(_ lines: [ArraySlice<UInt8>], named name: [UInt8]) -> OID?? {
        var found: OID?
        for line in lines where !line.isEmpty && line.first != UInt8(ascii: "#") {
            if line.first == UInt8(ascii: "^") {
                guard line.count == 41, id(line.dropFirst()) != nil else { return nil }
                continue
            }
            guard line.count > 41, let id = id(line.prefix(40)), line[line.startIndex + 40] == UInt8(ascii: " ") else { return nil }
            if Array(line.dropFirst(41)) == name { found = id }
        }
        return .some(found)
    }

    /// The id 40 hexadecimal digits spell; nil for anything else.
    private static func id(_ digits: ArraySlice<UInt8>) -> OID? {
        guard digits.count == 40 else { return nil }
        var bytes: [UInt8] = []
        var high: UInt8?
        for digit in digits {
            let value: UInt8
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = digit - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value = digit - UInt8(ascii: "A") + 10
            default: return nil
            }
            if let first = high {
                bytes.append(first << 4 | value)
                high = nil
            } else {
                high = value
            }
        }
        return OID(bytes: bytes)
    }
}
