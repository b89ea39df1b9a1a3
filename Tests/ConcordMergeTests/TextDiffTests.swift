import ConcordMerge
import Foundation
import Testing

@Suite struct TextDiffTests {
    func diff(_ old: String, _ new: String, context: Int = 3) throws -> TextDiff {
        try TextDiff(old: Data(old.utf8), new: Data(new.utf8), context: context)
    }

    @Test func aChangedLineIsRemovedThenAddedWithItsContextAndNumbers() throws {
        let result = try diff("a\nb\nc\nd\n", "a\nB\nc\nd\n", context: 1)
        #expect(result.hunks.count == 1)
        let hunk = result.hunks[0]
        #expect(hunk.header == "@@ -1,3 +1,3 @@")
        #expect(hunk.lines.map(\.kind) == [.context, .removed, .added, .context])
        #expect(hunk.lines.map(\.text) == ["a", "b", "B", "c"])
        #expect(hunk.lines[1].oldNumber == 2 && hunk.lines[1].newNumber == nil)
        #expect(hunk.lines[2].newNumber == 2 && hunk.lines[2].oldNumber == nil)
        #expect(result.addedCount == 1 && result.removedCount == 1)
    }

    @Test func theUnifiedFormIsWhatDiffUPrints() throws {
        let lines = try diff("one\ntwo\n", "one\ntwo\nthree").unifiedLines(oldLabel: "a/note.txt", newLabel: "b/note.txt")
        #expect(lines == ["--- a/note.txt", "+++ b/note.txt", "@@ -1,2 +1,3 @@", " one", " two", "+three", "\\ No newline at end of file"])
    }

    @Test func farApartChangesAreTwoHunksAndEveryLineWithUnlimitedContext() throws {
        let old = (1...20).map { "line \($0)\n" }.joined()
        let new = old.replacingOccurrences(of: "line 2\n", with: "line two\n").replacingOccurrences(of: "line 19\n", with: "line nineteen\n")
        #expect(try diff(old, new).hunks.count == 2)
        let whole = try diff(old, new, context: .max)
        #expect(whole.hunks.count == 1)
        #expect(whole.hunks[0].lines.filter { $0.kind != .added }.count == 20)
    }

    @Test func theSameTextHasNoHunks() throws {
        #expect(try diff("same\n", "same\n").isEmpty)
        #expect(try diff("same\n", "same\n").unifiedLines(oldLabel: "a", newLabel: "b").isEmpty)
    }

    @Test func binaryContentIsRefused() {
        #expect(throws: TextDiff.NotText.self) { try TextDiff(old: Data("text\n".utf8), new: Data([0, 1, 2, 0xFF])) }
        #expect(throws: TextDiff.NotText.self) { try TextDiff(old: Data([0xFF, 0xFE]), new: Data("text\n".utf8)) }
    }
}
