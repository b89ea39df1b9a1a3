import Foundation
import GitFormat
import Testing
import TestSupport

@testable import Git
@testable import GitStore

/// A cloud's packed objects are read by following their delta chains in a loop that refuses a
/// chain that comes back on itself and one longer than ``PackWriter/deepestRead``, whatever the
/// pack's bytes say (two ref-deltas each other's base made libgit2 allocate without bound).
@Suite struct ObjectStoreTests {
    let folder = NSTemporaryDirectory() + "concord-objectfolder-" + UUID().uuidString + "/"

    /// An id that sorts by `number`.
    func id(_ number: Int) -> [UInt8] {
        GitBytes.bigEndian(number, width: 4) + Array(repeating: 0x11, count: 16)
    }

    /// A reference delta to `base` that rebuilds its base's five bytes.
    func delta(to base: [UInt8]) -> [UInt8] {
        let instructions = GitBytes.deltaSizes(base: 5, target: 5) + GitBytes.deltaCopy(offset: 0, count: 5)
        return GitBytes.entryHeader(type: 7, size: instructions.count, base: base) + GitBytes.zlibStored(instructions)
    }

    /// The folder `objects/` of a cloud with one pack of `entries`, listed in the index under
    /// `ids` (in increasing order), each entry in turn.
    func store(_ entries: [[UInt8]], ids: [[UInt8]]) throws -> ObjectStore {
        let (pack, offsets) = GitBytes.pack(entries)
        let index = GitBytes.packIndex(Array(zip(ids, offsets)).map { (id: $0.0, offset: $0.1) })
        try FileManager.default.createDirectory(atPath: folder + "pack", withIntermediateDirectories: true)
        try Data(pack).write(to: URL(fileURLWithPath: folder + "pack/pack-test.pack"))
        try Data(index).write(to: URL(fileURLWithPath: folder + "pack/pack-test.idx"))
        return ObjectStore(path: folder, largestObject: 1 << 20, durable: false)
    }

    @Test func deltasThatAreEachOthersBaseAreRefused() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let objects = try store([delta(to: id(1)), delta(to: id(0))], ids: [id(0), id(1)])
        let error = try #require(throws: StoreError.self) { try objects.read(try #require(OID(bytes: id(0)))) }
        #expect(error.message.contains("its deltas loop"), "\(error)")
    }

    /// A chain of `deltas` reference deltas, each against the next entry, down to a blob.
    func chain(_ deltas: Int) throws -> (ObjectStore, OID) {
        let entries = (0..<deltas).map { delta(to: id($0 + 1)) } + [GitBytes.entryHeader(type: 3, size: 5) + GitBytes.zlibStored(Array("hello".utf8))]
        return (try store(entries, ids: (0...deltas).map(id)), try #require(OID(bytes: id(0))))
    }

    @Test func aChainAsDeepAsTheBoundIsReadAndADeeperOneRefused() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (deepest, top) = try chain(PackWriter.deepestRead)
        let object = try deepest.read(top)
        #expect(object.type == .blob && object.bytes == Array("hello".utf8))
        try FileManager.default.removeItem(atPath: folder)

        let (deeper, tooDeep) = try chain(PackWriter.deepestRead + 1)
        let error = try #require(throws: StoreError.self) { try deeper.read(tooDeep) }
        #expect(error.message.contains("its deltas go deeper than \(PackWriter.deepestRead)"), "\(error)")
    }

    /// A delta's type and size come from headers (its chain's, and its own first bytes), with
    /// the same refusals as a read: a chain that loops is refused, a size the delta does not
    /// rebuild is given as it says and refused when read.
    @Test func aDeltasTypeAndSizeAreReadFromHeaders() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (objects, top) = try chain(3)
        #expect(try objects.header(of: top) == (.blob, 5))
        #expect(try objects.size(of: top) == 5)
        #expect(objects.recent[top] == nil, "nothing was rebuilt")
        try FileManager.default.removeItem(atPath: folder)

        let looping = try store([delta(to: id(1)), delta(to: id(0))], ids: [id(0), id(1)])
        let error = try #require(throws: StoreError.self) { try looping.header(of: try #require(OID(bytes: id(0)))) }
        #expect(error.message.contains("its deltas loop"), "\(error)")
        try FileManager.default.removeItem(atPath: folder)

        let instructions = GitBytes.deltaSizes(base: 5, target: 7) + GitBytes.deltaCopy(offset: 0, count: 5)
        let claimingMore = GitBytes.entryHeader(type: 7, size: instructions.count, base: id(1)) + GitBytes.zlibStored(instructions)
        let whole = GitBytes.entryHeader(type: 3, size: 5) + GitBytes.zlibStored(Array("hello".utf8))
        let lying = try store([claimingMore, whole], ids: [id(0), id(1)])
        let liar = try #require(OID(bytes: id(0)))
        #expect(try lying.size(of: liar) == 7)
        let refusal = try #require(throws: StoreError.self) { try lying.read(liar) }
        #expect(refusal.message.contains("its delta does not apply to its base"), "\(refusal)")
    }

    /// A delta whose sizes cannot be read (none, or one that never ends) is refused in one line
    /// by a question about its size, as by a read.
    @Test func aDeltaWithoutReadableSizesIsRefused() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let whole = GitBytes.entryHeader(type: 3, size: 5) + GitBytes.zlibStored(Array("hello".utf8))
        for instructions: [UInt8] in [[], [0x85, 0x85, 0x85]] {
            let delta = GitBytes.entryHeader(type: 7, size: instructions.count, base: id(1)) + GitBytes.zlibStored(instructions)
            let objects = try store([delta, whole], ids: [id(0), id(1)])
            let bad = try #require(OID(bytes: id(0)))
            for error in [
                try #require(throws: StoreError.self) { try objects.size(of: bad) },
                try #require(throws: StoreError.self) { try objects.header(of: bad) },
                try #require(throws: StoreError.self) { try objects.read(bad) },
            ] {
                #expect(error.message.contains("is damaged") && !error.message.contains("\n"), "\(error)")
            }
            try FileManager.default.removeItem(atPath: folder)
        }
    }

    /// Reading a chain keeps what each delta was applied to, not the object asked for: the next
    /// delta against any of them is rebuilt from there.
    @Test func aReadKeepsTheBasesOfItsChain() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (objects, top) = try chain(3)
        _ = try objects.read(top)
        let bases = try (1...3).map { try #require(OID(bytes: id($0))) }
        #expect(bases.allSatisfy { objects.recent[$0]?.bytes == Array("hello".utf8) && objects.recent[$0]?.type == .blob })
        #expect(objects.recent[top] == nil)
    }
}
