import ConcordMerge
import Foundation
import Testing

struct FileMergeTests {
    private func data(_ text: String) -> Data { Data(text.utf8) }

    @Test func mergedResult() {
        let result = FileMerge(policy: TextMergePolicy()).merge(
            base: data("a\nb\nc\n"), current: data("A\nb\nc\n"), other: data("a\nb\nC\n"))
        #expect(result == FileMerge.Result(content: data("A\nb\nC\n"), isMerged: true, reason: nil))
    }

    @Test func conflictWritesMarkersWithTheLabels() {
        let result = FileMerge(policy: TextMergePolicy(), currentLabel: "HEAD", otherLabel: "feature").merge(
            base: data("a\n"), current: data("b\n"), other: data("c\n"))
        #expect(!result.isMerged)
        #expect(result.content == data("<<<<<<< HEAD\nb\n=======\nc\n>>>>>>> feature\n"))
        #expect(result.reason == "both sides changed the same lines")
    }

    @Test func emptyBaseMeansNoAncestor() {
        let result = FileMerge(policy: JSONMergePolicy()).merge(base: Data(), current: data(#"{"a": 1}"#), other: data(#"{"b": 2}"#))
        #expect(result.content == data(#"{"a": 1, "b": 2}"#))
    }

    @Test func latestTakesTheOtherVersion() {
        let result = FileMerge(policy: JSONMergePolicy(settlesConflictsByLatest: true)).merge(
            base: data(#"{"a": 1}"#), current: data(#"{"a": 2}"#), other: data(#"{"a": 3}"#))
        #expect(result.content == data(#"{"a": 3}"#))
    }

    @Test func invalidInputLeavesTheCurrentFileWithAReason() {
        let result = FileMerge(policy: JSONMergePolicy()).merge(base: data("{}"), current: data("{\"a\":1}"), other: Data([0xFF, 0]))
        #expect(!result.isMerged)
        #expect(result.content == data("{\"a\":1}"))
        #expect(result.reason == "other's version is binary, not JSON text")
    }
}
