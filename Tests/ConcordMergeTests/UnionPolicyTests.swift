import ConcordMerge
import Foundation
import Testing

struct UnionPolicyTests {
    let policy = UnionPolicy()

    @Test func appendsFromBothSidesEarlierDeviceFirst() {
        let outcome = Fixtures.merge(policy, base: "a\nb\n", "a\nb\nmac1\nmac2\n", "a\nb\nipad1\n")
        #expect(Fixtures.text(outcome) == "a\nb\nmac1\nmac2\nipad1\n")
    }

    @Test func sameAppendOnBothSidesAppearsOnce() {
        let outcome = Fixtures.merge(policy, base: "a\n", "a\nx\ny\n", "a\nx\nz\n")
        #expect(Fixtures.text(outcome) == "a\nx\ny\nz\n")
    }

    @Test func insertionsStayBeforeTheirNextLine() {
        let outcome = Fixtures.merge(policy, base: "a\nb\nc\n", "a\nm\nb\nc\n", "a\nb\ni\nc\n")
        #expect(Fixtures.text(outcome) == "a\nm\nb\ni\nc\n")
    }

    @Test func lineRemovedOnOneSideStaysRemoved() {
        let outcome = Fixtures.merge(policy, base: "a\nb\nc\n", "a\nc\n", "a\nb\nc\nd\n")
        #expect(Fixtures.text(outcome) == "a\nc\nd\n")
    }

    @Test func repeatedLinesKeepTheirCount() {
        let outcome = Fixtures.merge(policy, base: "-\n", "-\nx\n-\n", "-\n-\n-\n")
        #expect(Fixtures.text(outcome) == "-\nx\n-\n-\n")
    }

    @Test func missingFinalNewlineIsRepaired() {
        let outcome = Fixtures.merge(policy, base: "a\n", "a\nb", "a\nc\n")
        #expect(Fixtures.text(outcome) == "a\nb\nc\n")
    }

    @Test func noAncestor() {
        let outcome = Fixtures.merge(policy, base: nil, "x\n", "y\n")
        #expect(Fixtures.text(outcome) == "x\ny\n")
    }

    @Test func sameResultWhicheverOrderTheVersionsCome() {
        let versions = Fixtures.pair("a\nb\n", "a\nc\n")
        let base = DocumentContent.file(Data("a\n".utf8))
        #expect(policy.merge(base: base, versions: versions) == policy.merge(base: base, versions: versions.reversed()))
    }

    @Test func binaryNeedsAPerson() {
        let versions = [
            MergeVersion(content: .file(Data([0, 1, 2])), id: "1", deviceName: "mac", deviceID: "m", clock: .zero),
            Fixtures.version("text\n", device: "ipad", clock: 1),
        ]
        let outcome = policy.merge(base: .file(Data("a\n".utf8)), versions: versions)
        guard case let .needsPerson(reason, _) = outcome else { Issue.record("merged binary"); return }
        #expect(reason.contains("binary"))
    }

    @Test func deletionRacingAnEditNeedsAPerson() {
        #expect(Fixtures.needsPerson(Fixtures.merge(policy, base: "a\n", nil, "a\nb\n")))
        #expect(Fixtures.text(Fixtures.merge(policy, base: "a\n", nil, "a\n")) == nil)
        #expect(Fixtures.merge(policy, base: "a\n", nil, "a\n") == .merged(nil))
    }
}
