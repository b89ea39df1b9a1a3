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

struct TextMergePolicyTests {
    @Test func markersNameTheDevices() {
        let outcome = Fixtures.merge(TextMergePolicy(), base: "x\n", "mac\n", "ipad\n")
        guard case let .needsPerson(_, markedUp) = outcome else { Issue.record("merged"); return }
        #expect(markedUp == .file(Data("<<<<<<< mac\nmac\n=======\nipad\n>>>>>>> ipad\n".utf8)))
    }

    @Test(arguments: [(TextMergePolicy.Favor.current, "mac\n"), (.other, "ipad\n"), (.union, "mac\nipad\n")])
    func favors(favor: TextMergePolicy.Favor, expected: String) {
        #expect(Fixtures.text(Fixtures.merge(TextMergePolicy(favor: favor), base: "x\n", "mac\n", "ipad\n")) == expected)
    }

    @Test func deletionAgainstUnchangedIsADeletion() {
        #expect(Fixtures.merge(TextMergePolicy(), base: "x\n", nil, "x\n") == .merged(nil))
        #expect(Fixtures.needsPerson(Fixtures.merge(TextMergePolicy(), base: "x\n", nil, "y\n")))
    }

    @Test func binaryNeedsAPerson() {
        let versions = [
            MergeVersion(content: .file(Data([0x89, 0x50, 0, 1])), id: "1", deviceName: "mac", deviceID: "m", clock: .zero, isCurrent: true),
            Fixtures.version("x\n", device: "ipad", clock: 1),
        ]
        guard case let .needsPerson(reason, _) = TextMergePolicy().merge(base: .file(Data("x\n".utf8)), versions: versions) else {
            Issue.record("merged"); return
        }
        #expect(reason == "mac's version is binary, not UTF-8 text")
    }
}
