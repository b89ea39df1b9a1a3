internal import Glibc

/// Git's delta format, as a pack's delta entries hold it: the sizes of the base and of the
/// target, then instructions that rebuild the target by copying ranges of the base and
/// inserting new bytes.
///
/// Concord makes its deltas between versions of the same folder or file (the same path in a
/// commit and in its parent), where it knows what to compare, instead of searching a window of
/// objects for a similar one as libgit2's pack builder does (most of a sync's time in a wide
/// folder). Two versions of a folder share almost all their entries: the delta matches the
/// entries of both in their sorted order, copying each run stored alike, so its cost is one
/// pass over both (a comparison of bytes where they agree) and its size follows the entries
/// that changed.
package enum Delta {
    /// The longest range one copy instruction can name (its size has three bytes).
    private static let longestCopy = 0xFF_FFFF

    /// A delta that rebuilds `target` from `base`, or nil when it would not be less than half
    /// the size of `target` (storing the target whole is then as good). `tree` says that both
    /// are folders (git tree objects), whose entries can be matched one by one.
    package static func make(from base: UnsafeRawBufferPointer, to target: UnsafeRawBufferPointer, tree: Bool) -> [UInt8]? {
        guard target.count >= 64 else { return nil }
        var delta = Encoder(limit: target.count / 2)
        delta.size(base.count)
        delta.size(target.count)
        if tree {
            matchEntries(base, target, into: &delta)
        } else {
            let shortest = min(base.count, target.count)
            let prefix = base.baseAddress.map { RawTree.commonPrefix($0, target.baseAddress!, count: shortest) } ?? 0
            var suffix = 0
            while suffix < shortest - prefix, base[base.count - 1 - suffix] == target[target.count - 1 - suffix] { suffix += 1 }
            delta.copy(from: 0, count: prefix)
            delta.insert(target, from: prefix, to: target.count - suffix)
            delta.copy(from: base.count - suffix, count: suffix)
        }
        return delta.overLimit ? nil : delta.finish()
    }

    /// The most bytes a delta's header takes: two sizes of at most eight bytes each
    /// (``sizes(_:)`` reads no more).
    package static let largestSizes = 16

    /// The sizes a delta's header gives: of the base it applies to, and of the target it
    /// rebuilds; nil when the header is malformed.
    package static func sizes(_ delta: UnsafeRawBufferPointer) -> (base: Int, target: Int)? {
        var at = 0
        guard let base = size(delta, &at), let target = size(delta, &at) else { return nil }
        return (base, target)
    }

    /// A size of a delta's header from `at`: seven bits a byte, least significant first, at
    /// most eight bytes (56 bits, never a negative size).
    private static func size(_ delta: UnsafeRawBufferPointer, _ at: inout Int) -> Int? {
        var value = 0, shift = 0
        while at < delta.count, shift < 56 {
            let byte = delta[at]
            at += 1
            value |= Int(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
        return nil
    }

    /// The target a delta rebuilds from `base`; nil when the delta is malformed: a size that
    /// does not match, an instruction that reads past the base or the delta, or a target of
    /// another size than its header says (or over `largest` bytes, checked before anything is
    /// allocated).
    package static func apply(_ delta: UnsafeRawBufferPointer, to base: UnsafeRawBufferPointer, largest: Int) -> [UInt8]? {
        var at = 0
        guard let baseSize = size(delta, &at), baseSize == base.count, let targetSize = size(delta, &at), targetSize <= largest else { return nil }
        var complete = false
        // Every byte is written by an instruction, or the target is dropped.
        let target = [UInt8](unsafeUninitializedCapacity: targetSize) { buffer, initialized in
            complete = Self.run(delta, from: at, on: base, into: UnsafeMutableRawBufferPointer(buffer))
            initialized = complete ? targetSize : 0
        }
        return complete ? target : nil
    }

    /// Runs the instructions of `delta` from `start` on `base`, filling `output`; false when
    /// one is malformed or they do not fill it exactly.
    private static func run(_ delta: UnsafeRawBufferPointer, from start: Int, on base: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Bool {
        let targetSize = output.count
        var at = start
        var written = 0
        while at < delta.count {
            let command = delta[at]
            at += 1
            if command & 0x80 != 0 {
                var offset = 0, length = 0
                for index in 0..<4 where command & (1 << index) != 0 {
                    guard at < delta.count else { return false }
                    offset |= Int(delta[at]) << (8 * index)
                    at += 1
                }
                for index in 0..<3 where command & (0x10 << index) != 0 {
                    guard at < delta.count else { return false }
                    length |= Int(delta[at]) << (8 * index)
                    at += 1
                }
                if length == 0 { length = 0x10000 }
                guard offset + length <= base.count, written + length <= targetSize else { return false }
                output.baseAddress!.advanced(by: written).copyMemory(from: base.baseAddress!.advanced(by: offset), byteCount: length)
                written += length
            } else if command != 0 {
                let length = Int(command)
                guard at + length <= delta.count, written + length <= targetSize else { return false }
                output.baseAddress!.advanced(by: written).copyMemory(from: delta.baseAddress!.advanced(by: at), byteCount: length)
                written += length
                at += length
            } else {
                return false
            }
        }
        return written == targetSize
    }

    /// The end of the tree entry starting at `start`, or nil at the end or on a malformed entry.
    private static func entryEnd(_ tree: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard start < tree.count, let base = tree.baseAddress else { return nil }
        guard let nul = memchr(base + start, 0, tree.count - start) else { return nil }
        let end = (nul - UnsafeMutableRawPointer(mutating: base)) + 1 + 20
        return end <= tree.count ? end : nil
    }

    /// Matches the entries of two trees in their stored (name) order: runs of entries stored
    /// alike become copies (found by comparing bytes, ``RawTree/commonEntries(_:from:_:from:)``),
    /// target entries that are new or changed become inserts. A wrong guess only makes the
    /// delta longer, never wrong.
    private static func matchEntries(_ base: UnsafeRawBufferPointer, _ target: UnsafeRawBufferPointer, into delta: inout Encoder) {
        var i = 0, j = 0
        var pendingCopy: (offset: Int, count: Int)? = nil
        var insertFrom = j
        func flushCopy() {
            if let copy = pendingCopy { delta.copy(from: copy.offset, count: copy.count) }
            pendingCopy = nil
        }
        while j < target.count, !delta.overLimit {
            let length = RawTree.commonEntries(base, from: i, target, from: j).length
            guard length > 0 else {
                guard let targetEnd = entryEnd(target, from: j), let baseEnd = entryEnd(base, from: i) else { break }
                let order = compareNames(base, i, baseEnd, target, j, targetEnd)
                if order >= 0 { j = targetEnd }
                if order <= 0 { i = baseEnd }
                continue
            }
            if insertFrom < j {
                flushCopy()
                delta.insert(target, from: insertFrom, to: j)
            }
            if let copy = pendingCopy, copy.offset + copy.count == i {
                pendingCopy = (copy.offset, copy.count + length)
            } else {
                flushCopy()
                pendingCopy = (i, length)
            }
            i += length
            j += length
            insertFrom = j
        }
        if insertFrom < target.count {
            flushCopy()
            delta.insert(target, from: insertFrom, to: target.count)
        }
        flushCopy()
    }

    /// Compares two tree entries by name in git's order (a folder's name sorts as if it ended
    /// with "/"): negative when the base entry comes first.
    private static func compareNames(
        _ base: UnsafeRawBufferPointer, _ i: Int, _ baseEnd: Int, _ target: UnsafeRawBufferPointer, _ j: Int, _ targetEnd: Int
    ) -> Int {
        func name(_ tree: UnsafeRawBufferPointer, _ start: Int, _ end: Int) -> (start: Int, end: Int, folder: Bool) {
            var space = start
            while space < end, tree[space] != 0x20 { space += 1 }
            return (space + 1, end - 21, tree[start] == 0x34)  // mode "40000"
        }
        let a = name(base, i, baseEnd), b = name(target, j, targetEnd)
        var x = a.start, y = b.start
        while true {
            let ca: Int = x < a.end ? Int(base[x]) : (a.folder && x == a.end ? 0x2F : -1)
            let cb: Int = y < b.end ? Int(target[y]) : (b.folder && y == b.end ? 0x2F : -1)
            if ca != cb || ca < 0 { return ca - cb }
            x += 1
            y += 1
        }
    }

    /// Writes delta instructions, giving up once they pass `limit` bytes.
    private struct Encoder {
        let limit: Int
        var bytes: [UInt8] = []
        var overLimit: Bool { bytes.count > limit }

        init(limit: Int) {
            self.limit = limit
            bytes.reserveCapacity(min(limit, 4096))
        }

        /// A size in the header: seven bits a byte, least significant first.
        mutating func size(_ value: Int) {
            var value = value
            repeat {
                let low = UInt8(value & 0x7F)
                value >>= 7
                bytes.append(value > 0 ? low | 0x80 : low)
            } while value > 0
        }

        mutating func copy(from offset: Int, count: Int) {
            var offset = offset, remaining = count
            while remaining > 0 {
                let length = min(remaining, Delta.longestCopy)
                var command: UInt8 = 0x80
                let at = bytes.count
                bytes.append(0)
                for index in 0..<4 where (offset >> (8 * index)) & 0xFF != 0 {
                    command |= 1 << index
                    bytes.append(UInt8((offset >> (8 * index)) & 0xFF))
                }
                for index in 0..<3 where (length >> (8 * index)) & 0xFF != 0 {
                    command |= 0x10 << index
                    bytes.append(UInt8((length >> (8 * index)) & 0xFF))
                }
                bytes[at] = command
                offset += length
                remaining -= length
            }
        }

        mutating func insert(_ source: UnsafeRawBufferPointer, from start: Int, to end: Int) {
            var position = start
            while position < end, !overLimit {
                let length = min(end - position, 0x7F)
                bytes.append(UInt8(length))
                bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: source[position..<(position + length)]))
                position += length
            }
        }

        func finish() -> [UInt8] { bytes }
    }
}
