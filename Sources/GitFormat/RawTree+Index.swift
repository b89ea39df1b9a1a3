extension RawTree {
    /// A wide folder's bytes with where each entry starts, to find entries by name with a
    /// binary search: one pass over the bytes instead of libgit2 parsing every entry of the
    /// folder into a structure of its own (some 10 ms for a folder of 100,000 documents).
    package struct Index {
        /// The folder's bytes.
        package let bytes: [UInt8]
        private let starts: [Int32]

        /// Indexes `bytes`, a folder as git stores it, of less than 2 GB.
        /// - Throws: ``FormatError`` when `bytes` is not a well-formed folder.
        package init(_ bytes: [UInt8]) throws {
            self.bytes = bytes
            var starts: [Int32] = []
            try bytes.withUnsafeBufferPointer { buffer in
                var position = 0
                while position < buffer.count {
                    starts.append(Int32(position))
                    position = try RawTree.entry(in: buffer, at: position).end
                }
            }
            self.starts = starts
        }

        /// The entry named `name` (a file's or a folder's), nil when there is none.
        package func entry(named name: Substring) throws -> TreeEntry? {
            let name = Array(name.utf8)
            return try bytes.withUnsafeBufferPointer { buffer in
                for terminator in [UInt8(0), UInt8(ascii: "/")] {
                    let key = name + [terminator]
                    var low = 0, high = starts.count
                    while low < high {
                        let middle = (low + high) / 2
                        let entry = try RawTree.entry(in: buffer, at: Int(starts[middle]))
                        let order = RawTree.compare(key, buffer, entry.name, isTree: entry.isTree)
                        if order == 0 { return RawTree.treeEntry(buffer, entry) }
                        if order < 0 { high = middle } else { low = middle + 1 }
                    }
                }
                return nil
            }
        }
    }

    /// The entry named `name` when it is decided within the first `count` entries of `bytes`
    /// (found there, or absent since an entry past it in git's order was reached): `.some(entry)`
    /// or `.some(nil)`; nil when undecided.
    /// - Throws: ``FormatError`` when `bytes` is not a well-formed folder.
    package static func entry(named name: Substring, amongTheFirst count: Int, of bytes: [UInt8]) throws -> TreeEntry?? {
        let name = Array(name.utf8)
        let asFile = name + [0], asFolder = name + [UInt8(ascii: "/")]
        return try bytes.withUnsafeBufferPointer { buffer in
            var position = 0
            for _ in 0..<count {
                guard position < buffer.count else { return .some(nil) }
                let entry = try RawTree.entry(in: buffer, at: position)
                let file = RawTree.compare(asFile, buffer, entry.name, isTree: entry.isTree)
                let folder = RawTree.compare(asFolder, buffer, entry.name, isTree: entry.isTree)
                if file == 0 || folder == 0 { return .some(RawTree.treeEntry(buffer, entry)) }
                if file < 0 && folder < 0 { return .some(nil) }
                position = entry.end
            }
            return nil
        }
    }
}
