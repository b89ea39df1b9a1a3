import ConcordMerge
import Foundation
import Testing

/// `policy.merge(base:current:other:)`: three byte buffers in, bytes out, for every policy.
struct ByteLevelMergeTests {
    private func data(_ text: String) -> Data { Data(text.utf8) }

    @Test func threeBuffersMergeWithoutMetadata() {
        let result = TextMergePolicy().merge(
            base: data("milk\nbread\ntea\n"), current: data("oat milk\nbread\ntea\n"),
            other: data("milk\nbread\ngreen tea\n"))
        #expect(result == MergeResult(content: data("oat milk\nbread\ngreen tea\n"), isMerged: true, reason: nil))
    }

    /// The byte-level sample of docs/GUIDE.md (ReadmeSampleTests compares the two).
    @Test func theReadmeSampleMerges() {
        // README sample
        let base = Data(#"{"tags": ["a"], "v": 1}"#.utf8)
        let mine = Data(#"{"tags": ["a", "b"], "v": 1}"#.utf8)
        let theirs = Data(#"{"tags": ["a"], "v": 2}"#.utf8)
        let result = JSONMergePolicy().merge(base: base, current: mine, other: theirs)
        print(result.isMerged ? String(decoding: result.content, as: UTF8.self) : result.reason ?? "")
        // end of README sample
        #expect(String(decoding: result.content, as: UTF8.self) == #"{"tags": ["a", "b"], "v": 2}"#)
    }

    @Test func aConflictGivesMarkersNamedByTheLabelsAndAReason() {
        let result = TextMergePolicy().merge(
            base: data("a\n"), current: data("b\n"), other: data("c\n"),
            currentLabel: "mine", otherLabel: "theirs")
        #expect(!result.isMerged)
        #expect(result.content == data("<<<<<<< mine\nb\n=======\nc\n>>>>>>> theirs\n"))
        #expect(result.reason == "both sides changed the same lines")
    }

    @Test func noBaseMeansNoCommonAncestor() {
        let result = JSONMergePolicy().merge(base: nil, current: data(#"{"a": 1}"#), other: data(#"{"b": 2}"#))
        #expect(result.content == data(#"{"a": 1, "b": 2}"#))
        let empty = JSONMergePolicy().merge(base: Data(), current: data(#"{"a": 1}"#), other: data(#"{"b": 2}"#))
        #expect(!empty.isMerged && empty.reason?.hasPrefix("the common ancestor is not valid JSON") == true)
    }

    @Test func latestWinsTakesTheOtherBuffer() {
        #expect(LatestWinsPolicy().merge(base: data("a"), current: data("b"), other: data("c")).content == data("c"))
        #expect(KeepCurrentPolicy().merge(base: data("a"), current: data("b"), other: data("c")).content == data("b"))
    }

    @Test func thePackagePolicyRefusesFilesWithAReason() {
        let result = PackagePolicy().merge(base: data("a"), current: data("b"), other: data("c"))
        #expect(result == MergeResult(content: data("b"), isMerged: false, reason: "the common ancestor is a file, not a package"))
    }

    /// The byte-level entry gives every policy's own answer: the same as building the versions by hand.
    @Test(arguments: MergePolicies.names)
    func sameAnswerAsWithVersions(name: String) throws {
        let policy = try #require(MergePolicies.named(name))
        let inputs: [(String, String, String)] = [
            ("a\nb\nc\n", "A\nb\nc\n", "a\nb\nC\n"),
            ("a\n", "b\n", "c\n"),
            (#"{"v": 1, "w": [1, 2]}"#, #"{"v": 2, "w": [1, 2]}"#, #"{"v": 1, "w": [1, 2, 3]}"#),
            (#"{"v": 1}"#, #"{"v": 2}"#, #"{"v": 3}"#),
        ]
        for (base, current, other) in inputs {
            let versions = [
                MergeVersion(
                    content: .file(data(current)), id: "current", deviceName: "current", deviceID: "current",
                    clock: HybridLogicalClock(milliseconds: 0), isCurrent: true),
                MergeVersion(
                    content: .file(data(other)), id: "other", deviceName: "other", deviceID: "other",
                    clock: HybridLogicalClock(milliseconds: 1)),
            ]
            let result = policy.merge(base: data(base), current: data(current), other: data(other))
            switch policy.merge(base: .file(data(base)), versions: versions) {
            case let .merged(content):
                #expect(result.isMerged && result.content == content?.fileData, "\(base)")
            case let .needsPerson(reason, markedUp):
                #expect(!result.isMerged && result.reason == reason, "\(base)")
                #expect(result.content == markedUp?.fileData ?? data(current), "\(base)")
            }
        }
    }
}
