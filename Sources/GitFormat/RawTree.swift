internal import Glibc

/// A folder's bytes as git stores them: entries of `mode name\0` and a 20-byte id, in git's
/// order (names compared byte by byte, a folder's name as if it ended with `/`).
///
/// Editing a few entries of a wide folder this way copies the unchanged runs of bytes as they
/// are, instead of parsing every entry into a tree builder, sorting them and writing them out
/// again (libgit2's `git_tree_create_updated`): in a folder of 100,000 documents that is a few
/// milliseconds instead of a hundred and more.
///
/// Every read checks before it trusts: an entry's mode is octal digits, its name is not empty
/// and ends inside the bytes, and its id fits; the walks are loops, never recursion.
package enum RawTree {
    /// An entry's place in git's order: its name, then `/` for a folder or a NUL for anything else.
    package struct Key: Comparable {
        /// The name's bytes and the terminator.
        package var bytes: [UInt8]

        /// The key of an entry named `name`, a folder when `isTree`.
        package init(name: String, isTree: Bool) {
            bytes = Array(name.utf8) + [isTree ? UInt8(ascii: "/") : 0]
        }

        package static func < (a: Key, b: Key) -> Bool { a.bytes.lexicographicallyPrecedes(b.bytes) }
    }

    /// Where one entry lies in a folder's bytes: its name, whether it is a folder, its mode, and
    /// where it ends (its id is the 20 bytes before `end`).
    package typealias Entry = (name: Range<Int>, isTree: Bool, mode: UInt32, end: Int)

    /// The bytes of `base` (an empty array for no folder) without the entries at `removing`
    /// and with `inserting` put in their places. Every key removed must name an entry of
    /// `base`, and no entry inserted may share a key with one left in place.
    /// - Throws: ``FormatError`` when `base` is not a well-formed folder or lacks an entry to remove.
    package static func splice(_ base: [UInt8], removing: [Key], inserting: [TreeEntry]) throws -> [UInt8] {
        let removals = removing.sorted()
        let insertions = inserting.map { (key: Key(name: $0.name, isTree: $0.kind == .tree), entry: $0) }.sorted { $0.key < $1.key }
        var output: [UInt8] = []
        output.reserveCapacity(base.count + insertions.count * 64)
        var nextInsertion = 0, nextRemoval = 0
        try base.withUnsafeBufferPointer { bytes in
            var runStart = 0, position = 0
            while position < bytes.count {
                let entry = try Self.entry(in: bytes, at: position)
                while nextInsertion < insertions.count,
                    Self.compare(insertions[nextInsertion].key.bytes, bytes, entry.name, isTree: entry.isTree) < 0
                {
                    output.append(contentsOf: bytes[runStart..<position])
                    runStart = position
                    append(insertions[nextInsertion].entry, to: &output)
                    nextInsertion += 1
                }
                if nextRemoval < removals.count,
                    Self.compare(removals[nextRemoval].bytes, bytes, entry.name, isTree: entry.isTree) == 0
                {
                    output.append(contentsOf: bytes[runStart..<position])
                    runStart = entry.end
                    nextRemoval += 1
                }
                position = entry.end
            }
            output.append(contentsOf: bytes[runStart..<bytes.count])
        }
        guard nextRemoval == removals.count else {
            throw FormatError(.tree, "it lacks an entry it was to lose")
        }
        for insertion in insertions[nextInsertion...] { append(insertion.entry, to: &output) }
        return output
    }

    /// Every entry of the folder `bytes`, in git's order.
    /// - Throws: ``FormatError`` when `bytes` is not a well-formed folder.
    package static func entries(_ bytes: [UInt8]) throws -> [TreeEntry] {
        var found: [TreeEntry] = []
        try bytes.withUnsafeBufferPointer { bytes in
            var position = 0
            while position < bytes.count {
                let entry = try Self.entry(in: bytes, at: position)
                found.append(treeEntry(bytes, entry))
                position = entry.end
            }
        }
        return found
    }

    /// The ids of the folders `bytes` names, read without parsing its other entries further
    /// than their mode and the end of their name.
    /// - Throws: ``FormatError`` when `bytes` is not a well-formed folder.
    package static func folders(in bytes: [UInt8]) throws -> [OID] {
        var found: [OID] = []
        try bytes.withUnsafeBufferPointer { bytes in
            var position = 0
            while position < bytes.count {
                let entry = try Self.entry(in: bytes, at: position)
                if entry.isTree, let id = OID(bytes: bytes[(entry.end - 20)..<entry.end]) { found.append(id) }
                position = entry.end
            }
        }
        return found
    }
    /// Each pair of entries, one from each folder's bytes (empty for no folder), that differ,
    /// in git's order (a name that is a file on one side and a folder on the other comes as two
    /// pairs). A run of entries stored alike on both sides is passed over by comparing bytes and
    /// finding where each entry ends, nothing parsed or copied out.
    ///
    /// Refuses a `new` folder that is not one git would write: entries out of git's order or
    /// listed twice, or a file and a folder of one name (git's fsck calls both duplicate
    /// entries). `old` must be a folder already checked. Only the entries that differ are
    /// checked, against their neighbours: two neighbours both found unchanged in `old` are in
    /// order already, and a file and a folder of one name cannot both be unchanged. When a
    /// neighbourhood is too long to search (many names that extend the entry's own), the whole
    /// of `new` is checked once instead (``validate(_:)``), so the cost stays linear.
    /// - Throws: ``FormatError`` when either folder is malformed or `new` is not a valid folder.
    package static func differences(_ old: [UInt8], _ new: [UInt8]) throws -> [(TreeEntry?, TreeEntry?)] {
        var found: [(TreeEntry?, TreeEntry?)] = []
        var validated = false
        try old.withUnsafeBufferPointer { old in
            try new.withUnsafeBufferPointer { new in
                var i = 0, j = 0
                // Where the last entry of `new` passed starts, and whether it was unchanged.
                var previous: (start: Int, unchanged: Bool)?
                func pass(_ entry: Entry, unchanged: Bool, at start: Int) throws {
                    if let last = previous, !(unchanged && last.unchanged) {
                        let before = try Self.entry(in: new, at: last.start)
                        let key = Array(new[before.name]) + [before.isTree ? UInt8(ascii: "/") : 0]
                        guard compare(key, new, entry.name, isTree: entry.isTree) < 0 else {
                            throw FormatError(.tree, "it lists '\(String(decoding: new[entry.name], as: UTF8.self))' twice or out of order")
                        }
                    }
                    if !unchanged, !validated, try !Self.twinAbsent(of: entry, at: start, before: previous?.start, in: new) {
                        try validate(new)
                        validated = true
                    }
                    previous = (start, unchanged)
                }
                while i < old.count || j < new.count {
                    let (passed, last) = commonEntries(UnsafeRawBufferPointer(old), from: i, UnsafeRawBufferPointer(new), from: j)
                    if let last {
                        previous = (last, true)
                        i += passed
                        j += passed
                    }
                    let a = i < old.count ? try entry(in: old, at: i) : nil
                    let b = j < new.count ? try entry(in: new, at: j) : nil
                    if let x = a, let y = b, x.end - i == y.end - j, memcmp(old.baseAddress! + i, new.baseAddress! + j, x.end - i) == 0 {
                        try pass(y, unchanged: true, at: j)
                        (i, j) = (x.end, y.end)
                        continue
                    }
                    let order: Int
                    if let x = a, let y = b {
                        order = compare(Array(old[x.name]) + [x.isTree ? UInt8(ascii: "/") : 0], new, y.name, isTree: y.isTree)
                    } else {
                        order = a == nil ? 1 : -1
                    }
                    if order < 0, let x = a {
                        found.append((treeEntry(old, x), nil))
                        i = x.end
                    } else if order > 0, let y = b {
                        try pass(y, unchanged: false, at: j)
                        found.append((nil, treeEntry(new, y)))
                        j = y.end
                    } else if let x = a, let y = b {
                        try pass(y, unchanged: false, at: j)
                        let before = treeEntry(old, x), after = treeEntry(new, y)
                        if before.id != after.id || before.mode != after.mode { found.append((before, after)) }
                        (i, j) = (x.end, y.end)
                    }
                }
            }
        }
        return found
    }

    /// Checks that `bytes` is a folder git would write: every entry well formed, names in
    /// git's strict order (none twice), and no file and folder of one name. One pass: the files
    /// whose names every entry since has extended (by a byte that sorts before `/`) are kept on
    /// a stack, since only those can meet a folder of the same name later.
    /// - Throws: ``FormatError`` naming the first problem.
    package static func validate(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBufferPointer { try validate($0) }
    }

    private static func validate(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        var position = 0
        var previousKey: [UInt8]? = nil
        var files: [Range<Int>] = []
        while position < bytes.count {
            let entry = try Self.entry(in: bytes, at: position)
            let name = bytes[entry.name]
            let key = Array(name) + [entry.isTree ? UInt8(ascii: "/") : 0]
            if let previousKey, !previousKey.lexicographicallyPrecedes(key) {
                throw FormatError(.tree, "it lists '\(String(decoding: name, as: UTF8.self))' twice or out of order")
            }
            while let file = files.last, !Self.extends(name, bytes[file]) { files.removeLast() }
            if entry.isTree, let file = files.last, bytes[file].elementsEqual(name) {
                throw FormatError(.tree, "it holds a file and a folder both named '\(String(decoding: name, as: UTF8.self))'")
            }
            if !entry.isTree { files.append(entry.name) }
            previousKey = key
            position = entry.end
        }
    }

    /// True when `name` is `prefix` itself or `prefix` followed by a byte that sorts before `/`:
    /// the names that lie between a file `prefix` and a folder `prefix` in git's order.
    private static func extends<Bytes: Collection<UInt8>>(_ name: Bytes, _ prefix: Bytes) -> Bool {
        guard name.count >= prefix.count, name.prefix(prefix.count).elementsEqual(prefix) else { return false }
        return name.count == prefix.count || name.dropFirst(prefix.count).first! < UInt8(ascii: "/")
    }

    /// The most entries searched around one changed entry for its twin of the other kind.
    private static let twinSearchLimit = 16

    /// True when `entry` (starting at `start` in `bytes`) is known to have no twin of the other
    /// kind (a folder for a file, a file for a folder); false when that could not be decided
    /// within ``twinSearchLimit`` entries. A folder's twin file comes before it, with only names
    /// that extend it in between: the entry just before (`before`) decides unless it is such a
    /// name. A file's twin folder comes after it the same way.
    private static func twinAbsent(of entry: Entry, at start: Int, before: Int?, in bytes: UnsafeBufferPointer<UInt8>) throws -> Bool {
        let name = bytes[entry.name]
        if entry.isTree {
            guard let before else { return true }
            let neighbour = try Self.entry(in: bytes, at: before)
            guard Self.extends(bytes[neighbour.name], name) else { return true }
            return false
        }
        var position = entry.end
        for _ in 0..<twinSearchLimit {
            guard position < bytes.count else { return true }
            let next = try Self.entry(in: bytes, at: position)
            let nextName = bytes[next.name]
            if next.isTree, nextName.elementsEqual(name) {
                throw FormatError(.tree, "it holds a file and a folder both named '\(String(decoding: name, as: UTF8.self))'")
            }
            guard Self.extends(nextName, name) else { return true }
            position = next.end
        }
        return false
    }
    package static func commonEntries(_ old: UnsafeRawBufferPointer, from i: Int, _ new: UnsafeRawBufferPointer, from j: Int) -> (length: Int, last: Int?) {
        guard let a = old.baseAddress, let b = new.baseAddress, i < old.count, j < new.count else { return (0, nil) }
        let common = commonPrefix(a + i, b + j, count: min(old.count - i, new.count - j))
        var position = j, last: Int? = nil
        while position < j + common, let nul = memchr(b + position, 0, j + common - position) {
            let end = (UnsafeRawPointer(nul) - b) + 21
            guard end <= j + common else { break }
            last = position
            position = end
        }
        return (position - j, last)
    }

    /// How many bytes from the start `a` and `b` have in common, comparing `count` at most,
    /// in blocks.
    package static func commonPrefix(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, count: Int) -> Int {
        var common = 0
        for block in [4096, 64, 1] {
            while common + block <= count, memcmp(a + common, b + common, block) == 0 { common += block }
        }
        return common
    }

    /// The entry `entry` of `bytes`, copied out.
    package static func treeEntry(_ bytes: UnsafeBufferPointer<UInt8>, _ entry: Entry) -> TreeEntry {
        TreeEntry(name: String(decoding: bytes[entry.name], as: UTF8.self), id: OID(bytes: bytes[(entry.end - 20)..<entry.end])!, mode: entry.mode)
    }

    private static func append(_ entry: TreeEntry, to output: inout [UInt8]) {
        output += Array(String(entry.mode, radix: 8).utf8)
        output.append(UInt8(ascii: " "))
        output += Array(entry.name.utf8)
        output.append(0)
        entry.id.withUnsafeBytes { output.append(contentsOf: $0) }
    }

    /// The entry starting at `position`: where its name lies, whether it is a folder, where it ends.
    package static func entry(in bytes: UnsafeBufferPointer<UInt8>, at position: Int) throws -> Entry {
        var index = position
        var mode: UInt32 = 0
        while index < bytes.count, bytes[index] != UInt8(ascii: " ") {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 8, index - position < 7 else { throw malformed }
            mode = mode << 3 | UInt32(digit)
            index += 1
        }
        let nameStart = index + 1
        guard index > position, nameStart < bytes.count, let start = bytes.baseAddress,
            let found = memchr(start + nameStart, 0, bytes.count - nameStart)
        else { throw malformed }
        let nul = UnsafeRawPointer(found) - UnsafeRawPointer(start)
        guard nul > nameStart, nul + 21 <= bytes.count else { throw malformed }
        return (nameStart..<nul, mode & 0o170000 == 0o040000, mode, nul + 21)
    }

    private static var malformed: FormatError { FormatError(.tree, "its bytes are malformed") }

    /// `key` compared with the key of the entry named by `name` in `bytes`.
    package static func compare(_ key: [UInt8], _ bytes: UnsafeBufferPointer<UInt8>, _ name: Range<Int>, isTree: Bool) -> Int {
        let entryKeyCount = name.count + 1
        return key.withUnsafeBufferPointer { key in
            let common = min(key.count, entryKeyCount)
            for offset in 0..<common {
                let other = offset < name.count ? bytes[name.lowerBound + offset] : (isTree ? UInt8(ascii: "/") : 0)
                if key[offset] != other { return key[offset] < other ? -1 : 1 }
            }
            return key.count - entryKeyCount
        }
    }
}
