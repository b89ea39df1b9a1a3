internal import GitFormat

extension FuzzTarget {
    /// Two folders. Input: a choice of entries (2 bytes), the old folder's length (2 bytes), the
    /// old folder's bytes, then the new folder's.
    ///
    /// Each folder is checked against ``TreeModel``: ``RawTree/validate(_:)`` accepts exactly the
    /// valid ones, ``RawTree/folders(in:)`` and ``RawTree/Index`` read exactly the well-formed
    /// ones, and in a valid folder sixteen names spread over it (and a few that are not there)
    /// are found by
    /// ``RawTree/Index/entry(named:)`` and ``RawTree/entry(named:amongTheFirst:of:)`` as the model
    /// finds it. With a valid old folder, ``RawTree/differences(_:_:)`` succeeds exactly when the
    /// new folder is valid, with the model's pairs. Then ``RawTree/splice(_:removing:inserting:)``
    /// removes the old entries the choice bits name and inserts entries of the new folder: its
    /// bytes must be the model's (the entries kept as they were, those inserted in git's
    /// order), and the result goes through the same checks.
    static func tree(_ raw: UnsafeRawBufferPointer) throws(FuzzFailure) {
        var input = FuzzInput(raw)
        let choice = input.number(bytes: 2)
        let old = input.take(input.number(bytes: 2))
        let new = input.rest()
        try checkFolder(old)
        try checkFolder(new)
        try checkDifferences(old, new)
        try checkDifferences(new, old)
        if let spliced = try checkSplice(old, new, choice: choice) {
            try checkFolder(spliced)
            try checkDifferences(old, spliced)
        }
    }

    /// Calls `body`, which may throw only a ``FormatError``; nil when it does.
    private static func outcome<Value>(_ what: String, _ body: () throws -> Value) throws(FuzzFailure) -> Value? {
        do {
            return try body()
        } catch is FormatError {
            return nil
        } catch {
            throw FuzzFailure("\(what) threw \(error), not a FormatError")
        }
    }

    private static func checkFolder(_ bytes: [UInt8]) throws(FuzzFailure) {
        let model = TreeModel(bytes)
        let valid = try outcome("validate") { try RawTree.validate(bytes) } != nil
        try expect(
            valid == (model?.isValid ?? false),
            "validate \(valid ? "accepted" : "refused") a folder the model finds \(model == nil ? "malformed" : model?.isValid == true ? "valid" : "invalid")")
        let folders = try outcome("folders(in:)") { try RawTree.folders(in: bytes) }
        try expect(
            folders?.map(\.bytes) == model?.folders, "folders(in:) gave \(String(describing: folders?.count)) ids where the model has \(String(describing: model?.folders.count))")
        let index = try outcome("Index") { try RawTree.Index(bytes) }
        try expect((index == nil) == (model == nil), "Index \(index == nil ? "refused" : "accepted") a folder the model finds \(model == nil ? "malformed" : "well formed")")
        guard let index, let model else { return }
        // Sixteen names at most, spread over the folder.
        for number in stride(from: 0, to: model.entries.count, by: max(1, model.entries.count / 16)) {
            guard let name = model.entries[number].text else { continue }
            for probe in [name, name + "0", name + " ", String(name.dropLast())] {
                let found = try outcome("entry(named:)") { try index.entry(named: Substring(probe)) }
                let expected = model.entry(named: Array(probe.utf8))?.treeEntry
                for count in [1, model.entries.count / 2, model.entries.count + 1] {
                    let decided = try outcome("entry(named:amongTheFirst:of:)") { try RawTree.entry(named: Substring(probe), amongTheFirst: count, of: bytes) }
                    guard model.isValid else { continue }
                    guard let decided else { throw FuzzFailure("entry(named:amongTheFirst:of:) refused a valid folder") }
                    switch decided {
                    case .some(let answer):
                        try expect(
                            answer == expected,
                            "entry(named: \(probe.debugDescription), amongTheFirst: \(count)) decided \(String(describing: answer)) where the model finds \(String(describing: expected))"
                        )
                    case nil:
                        try expect(count <= model.entries.count, "entry(named:amongTheFirst: \(count)) left undecided a folder of \(model.entries.count) entries")
                    }
                }
                guard model.isValid else { continue }
                try expect(
                    found == .some(expected), "entry(named: \(probe.debugDescription)) found \(String(describing: found)) where the model finds \(String(describing: expected))")
            }
        }
    }

    private static func checkDifferences(_ old: [UInt8], _ new: [UInt8]) throws(FuzzFailure) {
        guard let oldModel = TreeModel(old), oldModel.isValid else {
            _ = try outcome("differences") { try RawTree.differences(old, new) }
            return
        }
        let found = try outcome("differences") { try RawTree.differences(old, new) }
        let newModel = TreeModel(new)
        let newValid = newModel?.isValid ?? false
        try expect(
            (found != nil) == newValid,
            "differences \(found == nil ? "refused" : "accepted") a new folder the model finds \(newModel == nil ? "malformed" : newValid ? "valid" : "invalid")")
        guard let found, let newModel else { return }
        let expected = TreeModel.differences(oldModel, newModel)
        try expect(
            found.count == expected.count && zip(found, expected).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 },
            "differences gave \(found.count) pairs where the model gives \(expected.count)")
    }

    /// The old folder with the entries `choice` names removed and entries of `new` inserted,
    /// checked against the model; nil when the old folder is not valid.
    private static func checkSplice(_ old: [UInt8], _ new: [UInt8], choice: Int) throws(FuzzFailure) -> [UInt8]? {
        guard let oldModel = TreeModel(old), oldModel.isValid else { return nil }
        var kept: [TreeModel.Entry] = []
        var removing: [RawTree.Key] = []
        for (number, entry) in oldModel.entries.enumerated() {
            if choice & (1 << (number % 15)) != 0, let name = entry.text {
                removing.append(RawTree.Key(name: name, isTree: entry.isTree))
            } else {
                kept.append(entry)
            }
        }
        var keys = Set(kept.map(\.key))
        var inserting: [TreeEntry] = []
        for entry in TreeModel(new)?.entries.prefix(64) ?? [] where entry.text != nil && !keys.contains(entry.key) {
            keys.insert(entry.key)
            inserting.append(entry.treeEntry)
        }
        // A name after the last entry's, which the folder cannot hold.
        var missing = false
        if choice & 0x8000 != 0, let last = oldModel.entries.last?.text, !keys.contains(Array((last + "~").utf8) + [0]) {
            removing.append(RawTree.Key(name: last + "~", isTree: false))
            missing = true
        }
        let spliced = try outcome("splice") { try RawTree.splice(old, removing: removing, inserting: inserting) }
        if missing {
            try expect(spliced == nil, "splice removed an entry the folder does not hold")
            return nil
        }
        guard let spliced else { throw FuzzFailure("splice refused a valid folder") }
        var expected: [(key: [UInt8], bytes: [UInt8])] = kept.map { ($0.key, Array(old[$0.range])) }
        for entry in inserting {
            let bytes = Array(String(entry.mode, radix: 8).utf8) + [UInt8(ascii: " ")] + Array(entry.name.utf8) + [0] + entry.id.bytes
            expected.append((RawTree.Key(name: entry.name, isTree: entry.kind == .tree).bytes, bytes))
        }
        expected.sort { $0.key.lexicographicallyPrecedes($1.key) }
        try expect(spliced == expected.flatMap(\.bytes), "splice wrote \(spliced.count) bytes that are not the model's \(expected.count) entries")
        return spliced
    }
}
