import GitStore
import Testing

/// A roll-up rewrites small packs only: by bytes, in a geometric progression, and never a pack
/// of a large file.
@Suite struct RollUpTests {
    private func pack(_ bytes: Int, objects: Int = 3) -> PackFile { PackFile(name: "pack-\(bytes)-\(objects).pack", objectCount: objects, bytes: bytes) }

    @Test func theGeometricRuleMergesOnlyTheSmallPacks() {
        #expect(RollUp.packsToMerge([pack(10), pack(30), pack(100)]).isEmpty, "already a progression")
        #expect(RollUp.packsToMerge([pack(1), pack(1), pack(1), pack(100)]).map(\.bytes) == [1, 1, 1])
        #expect(RollUp.packsToMerge([pack(5), pack(6), pack(100)]).map(\.bytes) == [5, 6])
        #expect(RollUp.packsToMerge([pack(40), pack(50), pack(60)]).map(\.bytes) == [40, 50, 60], "all, when the rolled-up small ones outgrow the next")
        #expect(RollUp.packsToMerge([pack(7)]).isEmpty)
    }

    /// Six 30 MB files in one pack of a dozen objects, then one-line edits in packs of three
    /// objects each: counted in objects the big pack joined the third roll-up; in bytes it
    /// never does.
    @Test func aPackOfLargeFilesIsNotRewrittenForSmallEdits() {
        let large = pack(180 << 20, objects: 12)
        var packs = [large]
        for edit in 1...200 {
            packs.append(pack(2_000 + edit, objects: 3))
            let merged = RollUp.packsToMerge(packs)
            #expect(!merged.contains(large), "edit \(edit)")
            if !merged.isEmpty {
                packs.removeAll { merged.contains($0) }
                packs.append(pack(merged.reduce(0) { $0 + $1.bytes }, objects: merged.reduce(0) { $0 + $1.objectCount }))
            }
        }
        #expect(packs.count < 12, "the small packs still roll up: \(packs.count) packs")
    }

    /// One roll-up rewrites at most the separate size: packs just under it (a folder saved at
    /// once, a sync of many attachments) are not merged into one large pack by a one-line edit.
    @Test func oneRollUpRewritesAtMostTheSeparateSize() {
        let packs = (1...10).map { pack(20 << 20, objects: $0) } + [pack(4_000), pack(4_100)]
        let merged = RollUp.packsToMerge(packs)
        #expect(merged.map(\.bytes) == [4_000, 4_100])
        #expect(RollUp.packsToMerge((1...10).map { pack(20 << 20, objects: $0) }).isEmpty)
        #expect(RollUp.packsToMerge([pack(10 << 20), pack(12 << 20), pack(14 << 20)]).map(\.bytes) == [10 << 20, 12 << 20])
    }

    /// Below the separate size, a larger pack waits until what is new outgrows half of it.
    @Test func aLargerPackJoinsOnlyWhenWhatIsNewOutgrowsHalfOfIt() {
        let base = pack(8 << 20)
        #expect(RollUp.packsToMerge([base, pack(1 << 20), pack(1 << 20)]).map(\.bytes) == [1 << 20, 1 << 20])
        #expect(RollUp.packsToMerge([base, pack(3 << 20), pack(3 << 20)]).contains(base))
    }
}
