import GitFormat
import GitStore
import Testing

/// The objects a repository keeps read: the least recently used go first, past a count or a
/// number of bytes, and a lookup makes an object the most recently used.
@Suite struct RecentObjectsTests {
    func id(_ number: Int) -> OID {
        OID(bytes: (0..<20).map { UInt8(truncatingIfNeeded: number >> (8 * ($0 % 4))) &+ UInt8($0) })!
    }

    @Test func theLeastRecentlyUsedGoPastTheCount() {
        let recent = RecentObjects(limit: 1 << 30)
        let count = RecentObjects.mostKept + 100
        for number in 0..<count { recent.keep(id(number), .tree, [UInt8(truncatingIfNeeded: number)]) }
        #expect((0..<100).allSatisfy { recent[id($0)] == nil })
        #expect((100..<count).allSatisfy { recent[id($0)]?.bytes == [UInt8(truncatingIfNeeded: $0)] })
    }

    @Test func aLookupMakesAFolderTheMostRecentlyUsed() {
        let recent = RecentObjects(limit: 1 << 30)
        for number in 0..<RecentObjects.mostKept { recent.keep(id(number), .tree, [1]) }
        // Looked up many times (more than the uses kept before they are gathered again).
        for _ in 0..<10_000 { #expect(recent[id(0)]?.bytes == [1]) }
        recent.keep(id(-1), .blob, [2])
        #expect(recent[id(0)]?.bytes == [1], "looked up last: kept")
        #expect(recent[id(1)] == nil, "the least recently used: gone")
        #expect(recent[id(2)]?.bytes == [1] && recent[id(-1)]?.bytes == [2] && recent[id(-1)]?.type == .blob)
    }

    @Test func theLeastRecentlyUsedGoPastTheBytesAndAFolderLargerThanAllIsNotKept() {
        let recent = RecentObjects(limit: 100)
        recent.keep(id(1), .tree, [UInt8](repeating: 1, count: 60))
        recent.keep(id(2), .tree, [UInt8](repeating: 2, count: 30))
        _ = recent[id(1)]
        recent.keep(id(3), .tree, [UInt8](repeating: 3, count: 30))
        #expect(recent[id(2)] == nil && recent[id(1)]?.bytes.count == 60 && recent[id(3)]?.bytes.count == 30)
        recent.keep(id(4), .tree, [UInt8](repeating: 4, count: 101))
        #expect(recent[id(4)] == nil && recent[id(1)] != nil)
        recent.removeAll()
        #expect(recent[id(1)] == nil && recent[id(3)] == nil)
    }
}
