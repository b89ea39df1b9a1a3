import Foundation
@testable import Git
import Testing

/// A pack's entries in the order they are stored, which says where each entry ends: copying
/// an entry as stored takes the bytes up to the next one, so an entry out of place copies
/// another's bytes.
@Suite struct PackOrderTests {
    @Test(arguments: [0, 1, 2, 1_000, 1_023, 1_024, 5_000, 100_000])
    func entriesAreOrderedByOffset(count: Int) {
        var generator = SystemRandomNumberGenerator()
        // Offsets as a pack has them: distinct, from 12, in no relation to the entry numbers.
        var offsets = Set<Int>()
        while offsets.count < count { offsets.insert(Int.random(in: 12..<(count * 300 + 13), using: &generator)) }
        let entries = offsets.shuffled(using: &generator).enumerated().map { (offset: $0.element, number: $0.offset) }
        let sorted = StoredPack.sortedByOffset(entries), expected = offsets.sorted()
        // The first entry out of place, rather than two arrays of 100,000 in a failure.
        let misplaced = sorted.indices.first { sorted[$0].offset != expected[$0] || entries[sorted[$0].number].offset != sorted[$0].offset }
        #expect(sorted.count == count)
        #expect(misplaced == nil, "entry \(misplaced ?? 0) of \(count) is out of place")
    }

    @Test func offsetsOf4GBAndMoreAreOrdered() {
        let entries = [(offset: 5 << 32, number: 0), (offset: 12, number: 1), (offset: (1 << 32) + 7, number: 2), (offset: 1 << 31, number: 3)]
        #expect(StoredPack.sortedByOffset(entries).map(\.number) == [1, 3, 2, 0])
    }

    @Test func offsetsWithHighBitsAreOrdered() {
        // Offsets that differ only above the bits the first passes look at.
        let entries = (0..<3_000).map { (offset: ((2_999 - $0) << 22) | 12, number: $0) }
        #expect(StoredPack.sortedByOffset(entries).map(\.number) == Array((0..<3_000).reversed()))
    }
}
