/// Which packs an automatic roll-up merges, so that what a save or a sync writes follows what
/// changed, not what the container holds (git's `repack --geometric=2`, by bytes).
///
/// Packs are taken smallest first while they do not form a geometric progression, each at
/// least twice the bytes of all those below it together: the number of packs stays
/// logarithmic and each byte is rewritten a logarithmic number of times over its life. A pack
/// of ``separatePackBytes`` or more (a large file, the pack of a full repack) is never merged
/// by a roll-up, whatever lies below it, and one roll-up rewrites at most that many bytes (the
/// largest of the packs it would take are left out): only `concord gc` rewrites more. Counting
/// objects instead of bytes rewrote six 30 MB files every few one-line edits (a few objects
/// each); without the bound, one edit's roll-up merged 270 MiB of packs just under the size.
public enum RollUp {
    /// The size from which a loose object stays a file of its own (a large file saved): a
    /// roll-up packs only the smaller ones, and `concord gc` the rest.
    public static let largeLooseObjectBytes = 1 << 20

    /// The size from which a pack stays apart, and the most one roll-up rewrites.
    public static let separatePackBytes = 32 << 20

    /// The packs to merge among `packs`: none, or two or more.
    public static func packsToMerge(_ packs: [PackFile]) -> [PackFile] {
        let sorted = packs.filter { $0.bytes < separatePackBytes }.sorted { ($0.bytes, $0.name) < ($1.bytes, $1.name) }
        var split = 0
        for index in stride(from: sorted.count - 1, to: 0, by: -1) where sorted[index].bytes < 2 * sorted[index - 1].bytes {
            split = index + 1
            break
        }
        guard split > 0 else { return [] }
        var total = sorted[..<split].reduce(0) { $0 + $1.bytes }
        while split < sorted.count, sorted[split].bytes < 2 * total {
            total += sorted[split].bytes
            split += 1
        }
        // Within the bound, and still geometric: the largest pack taken is less than twice the
        // others together.
        while split > 1, total > separatePackBytes || sorted[split - 1].bytes >= 2 * (total - sorted[split - 1].bytes) {
            split -= 1
            total -= sorted[split].bytes
        }
        return split > 1 ? Array(sorted[..<split]) : []
    }
}
