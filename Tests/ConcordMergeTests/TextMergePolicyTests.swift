import ConcordMerge
import Foundation
import Testing

struct TextMergePolicyTests {
    /// The markers a merge writes are found at the start of a line, whatever the line ends;
    /// the same characters elsewhere in a line are not markers.
    @Test func conflictMarkersAreFoundWithLFOrCRLFLineEnds() {
        for newline in ["\n", "\r\n"] {
            let marked = ["a", "<<<<<<< mac", "b", "=======", "c", ">>>>>>> ipad", ""].joined(separator: newline)
            #expect(TextMergePolicy.containsConflictMarkers(marked), "\(newline.debugDescription)")
            #expect(TextMergePolicy.containsConflictMarkers(["a", "=======", "b"].joined(separator: newline)), "\(newline.debugDescription)")
            #expect(!TextMergePolicy.containsConflictMarkers(["a", "x <<<<<<< y", "======= z", ""].joined(separator: newline)))
        }
    }

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
