internal import GitFormat

/// A folder's bytes parsed the plain way, from git's description, with arrays: the answers
/// ``RawTree`` must give. (Not fast, not shared with the reader it checks.)
///
/// An entry is an octal mode of one to seven digits, a space, a name of one byte or more
/// without NUL, a NUL, and a 20-byte id. A folder is valid when its entries' keys (the name,
/// then `/` for a folder or NUL for anything else) strictly increase and no name is both a
/// file's and a folder's.
struct TreeModel {
    /// One entry.
    struct Entry {
        /// Where the entry lies in the folder's bytes.
        var range: Range<Int>
        var name: [UInt8]
        var mode: UInt32
        var id: [UInt8]
        var isTree: Bool { mode & 0o170000 == 0o040000 }
        /// Its place in git's order.
        var key: [UInt8] { name + [isTree ? UInt8(ascii: "/") : 0] }
        /// The entry as ``RawTree`` copies it out.
        var treeEntry: TreeEntry {
            TreeEntry(name: String(decoding: name, as: UTF8.self), id: id.withUnsafeBytes { OID(unchecked: $0) }, mode: mode)
        }
        /// The name as text, when its bytes are valid UTF-8 (only such a name can be asked for).
        var text: String? {
            let text = String(decoding: name, as: UTF8.self)
            return Array(text.utf8) == name ? text : nil
        }
    }

    /// The entries, in the order stored.
    let entries: [Entry]
    /// True when the folder is one git would write.
    let isValid: Bool

    /// The entries of `bytes`; nil when one is malformed.
    init?(_ bytes: [UInt8]) {
        var entries: [Entry] = []
        var at = 0
        while at < bytes.count {
            guard let space = bytes[at...].firstIndex(of: UInt8(ascii: " ")), (1...7).contains(space - at),
                bytes[at..<space].allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "7")).contains($0) }),
                let nul = bytes[(space + 1)...].firstIndex(of: 0), nul > space + 1, nul + 21 <= bytes.count
            else { return nil }
            let mode = bytes[at..<space].reduce(UInt32(0)) { $0 << 3 | UInt32($1 - UInt8(ascii: "0")) }
            entries.append(Entry(range: at..<(nul + 21), name: Array(bytes[(space + 1)..<nul]), mode: mode, id: Array(bytes[(nul + 1)..<(nul + 21)])))
            at = nul + 21
        }
        self.entries = entries
        let files = Set(entries.filter { !$0.isTree }.map(\.name))
        isValid =
            zip(entries, entries.dropFirst()).allSatisfy { $0.key.lexicographicallyPrecedes($1.key) }
            && !entries.contains { $0.isTree && files.contains($0.name) }
    }

    /// The ids of its folders, in order.
    var folders: [[UInt8]] { entries.filter(\.isTree).map(\.id) }

    /// The entry named `name`: the file, else the folder.
    func entry(named name: [UInt8]) -> Entry? {
        entries.first { $0.name == name && !$0.isTree } ?? entries.first { $0.name == name && $0.isTree }
    }

    /// The pairs of entries that differ between `old` and `new` (both valid), in git's order:
    /// one removed, one added, or one whose id or mode changed.
    static func differences(_ old: TreeModel, _ new: TreeModel) -> [(TreeEntry?, TreeEntry?)] {
        var found: [(TreeEntry?, TreeEntry?)] = []
        var i = 0, j = 0
        while i < old.entries.count || j < new.entries.count {
            let a = i < old.entries.count ? old.entries[i] : nil
            let b = j < new.entries.count ? new.entries[j] : nil
            if let a, b == nil || a.key.lexicographicallyPrecedes(b?.key ?? []) {
                found.append((a.treeEntry, nil))
                i += 1
            } else if let b, a == nil || b.key.lexicographicallyPrecedes(a?.key ?? []) {
                found.append((nil, b.treeEntry))
                j += 1
            } else if let a, let b {
                if a.id != b.id || a.mode != b.mode { found.append((a.treeEntry, b.treeEntry)) }
                i += 1
                j += 1
            }
        }
        return found
    }
}
