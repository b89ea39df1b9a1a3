import Foundation
@testable import Git
@testable import GitStore
@testable import GitFormat
import Testing

/// A pack's entries in the order they are stored, which says where each entry ends: copying
/// an entry as stored takes the bytes up to the next one, so an entry out of place copies
/// another's bytes.
@Suite struct PackOrderTests {
    @Test(arguments: [0, 1, 2, 1_000, 1_023, 1_024, 5_000, 100_000])
    func entriesAreOrderedByOffset(count: Int) throws {
        var generator = SystemRandomNumberGenerator()
        // Offsets as a pack has them: distinct, from 12, in no relation to the entry numbers.
        var offsets = Set<Int>()
        while offsets.count < count { offsets.insert(Int.random(in: 12..<(count * 300 + 13), using: &generator)) }
        let byNumber = offsets.shuffled(using: &generator)
        let order = try #require(StoredPack.Order(offsets: byNumber, count: count))
        let expected = offsets.sorted()
        // The first entry out of place, rather than two arrays of 100,000 in a failure.
        let misplaced = order.keys.indices.first { order.offset(at: $0) != expected[$0] || byNumber[order.number(at: $0)] != expected[$0] }
        #expect(order.keys.count == count)
        #expect(misplaced == nil, "entry \(misplaced ?? 0) of \(count) is out of place")
        for offset in byNumber.prefix(50) {
            let position = try #require(order.position(ofOffset: offset))
            #expect(order.offset(at: position) == offset)
        }
        #expect(order.position(ofOffset: count * 300 + 13) == nil)
        #expect(order.position(ofOffset: 11) == nil)
    }

    @Test func offsetsOf4GBAndMoreAreOrdered() throws {
        let order = try #require(StoredPack.Order(offsets: [5 << 32, 12, (1 << 32) + 7, 1 << 31], count: 4))
        #expect(order.keys.indices.map(order.number(at:)) == [1, 3, 2, 0])
        #expect(order.position(ofOffset: (1 << 32) + 7) == 2)
    }

    @Test func offsetsWithHighBitsAreOrdered() throws {
        // Offsets that differ only above the bits the first passes look at.
        let offsets = (0..<3_000).map { ((2_999 - $0) << 30) | 12 }
        let order = try #require(StoredPack.Order(offsets: offsets, count: offsets.count))
        #expect(order.keys.indices.map(order.number(at:)) == Array((0..<3_000).reversed()))
    }

    @Test func anOffsetThatCannotBeHeldIsRefused() {
        #expect(StoredPack.Order(offsets: [12, -1], count: 2) == nil)
        #expect(StoredPack.Order(offsets: [12, 1 << 62], count: 2) == nil)
    }
}
