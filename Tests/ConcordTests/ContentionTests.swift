import Concord
import ConcordMerge
import Foundation
import Testing

@Suite struct ContentionTests {
    /// Three devices edit the same note offline, each a different line of `base`, then sync.
    func threeWay(base: String, edits: [String]) async throws -> Fixture {
        let fixture = try Fixture(devices: 3)
        try await fixture[1].save(doc("note.txt"), content: text(base))
        try await fixture.syncAll(rounds: 1)
        for device in 1...3 {
            try await fixture[device].setAirplaneMode(true)
            try await fixture[device].save(doc("note.txt"), content: text(edits[device - 1]))
        }
        for device in [2, 3, 1] {
            try await fixture[device].setAirplaneMode(false)
            try await fixture[device].sync()
        }
        try await fixture.syncAll()
        return fixture
    }

    /// Three lines far enough apart that changing each on another device merges line by line.
    static let base = "one\n-\n-\ntwo\n-\n-\nthree\n"
    static let edits = ["ONE\n-\n-\ntwo\n-\n-\nthree\n", "one\n-\n-\nTWO\n-\n-\nthree\n", "one\n-\n-\ntwo\n-\n-\nTHREE\n"]

    @Test func listsEveryVersionWithItsContentAndTheCommonAncestor() async throws {
        let base = Self.base
        let fixture = try await threeWay(base: base, edits: Self.edits)
        let contention = try await fixture[2].contention(of: doc("note.txt"))
        let unresolved = try await fixture[2].unresolvedVersions(of: doc("note.txt"))
        #expect(contention.versions.map(\.version) == unresolved)
        #expect(Set(contention.versions.map(\.version.deviceName)) == ["device1", "device2", "device3"])
        #expect(contention.versions[0].version.isCurrent)
        for version in contention.versions {
            #expect(try await version.content == fixture[2].content(of: doc("note.txt"), version: version.version.id))
        }
        #expect(string(contention.ancestor?.content) == base)
        #expect(contention.ancestor?.version.deviceName == "device1")
        #expect(contention.document == doc("note.txt"))
    }

    @Test func eachPolicysPreviewIsWhatResolvingWithItSaves() async throws {
        let fixture = try await threeWay(base: Self.base, edits: Self.edits)
        let contention = try await fixture[1].contention(of: doc("note.txt"))
        // Every built-in policy, in order (other suites of this process may register more, after them).
        #expect(Array(contention.previews.map(\.policy).prefix(MergePolicies.builtIn.count)) == MergePolicies.builtIn.map(\.name))
        let textPreview = try #require(contention.preview("text"))
        #expect(textPreview.isMerged)
        #expect(string(textPreview.content) == "ONE\n-\n-\nTWO\n-\n-\nTHREE\n")
        #expect(contention.selected.policy == "text")
        #expect(contention.selectingRule == nil)
        let union = try #require(contention.preview("union"))
        try await fixture[1].resolve(doc("note.txt"), using: .merge(UnionPolicy()))
        #expect(try await fixture[1].content(of: doc("note.txt")) == union.content)
        #expect(try await fixture[1].conflicts().isEmpty)
    }

    @Test func aPreviewThatNeedsAPersonShowsWhereAndThePoliciesFileChoosesThePolicy() async throws {
        let fixture = try Fixture(devices: 2)
        try await fixture.diverge("note.txt", base: "same\nline\n", "same\nfrom one\n", "same\nfrom two\n")
        let contention = try await fixture[1].contention(of: doc("note.txt"))
        let textPreview = try #require(contention.preview("text"))
        #expect(!textPreview.isMerged)
        guard case let .needsPerson(reason, markedUp) = textPreview.outcome else { Issue.record("text merged a line changed on both sides"); return }
        #expect(reason.contains("same lines"))
        let marked = try #require(string(markedUp))
        #expect(marked.contains("<<<<<<<") && marked.contains("from one") && marked.contains("from two"))
        #expect(try #require(contention.preview("latest")).isMerged)

        try await fixture[1].setPolicies("*.md text\n*.txt text-union\n")
        let chosen = try await fixture[1].contention(of: doc("note.txt"))
        #expect(chosen.selected.policy == "text-union")
        #expect(chosen.selectingRule?.line == 2)
        let report = try await fixture[1].resolve(doc("note.txt"), using: .mergeBySelection)
        #expect(report.policy == "text-union")
        #expect(try await fixture[1].content(of: doc("note.txt")) == chosen.selected.content)
    }

    /// After a save over the conflict, git's merge base is the version that lost; the ancestor
    /// shown is the one a merge starts from (the versions' common previous version).
    @Test func theAncestorIsTheOneAMergeStartsFromAfterASaveOverTheConflict() async throws {
        let fixture = try Fixture(devices: 2)
        try await fixture.diverge("list.txt", base: "one\ntwo\nthree\n", "one, from 1\ntwo\nthree\n", "one\ntwo\nthree, from 2\n")
        let current = try #require(string(await fixture[1].content(of: doc("list.txt"))))
        try await fixture[1].save(doc("list.txt"), content: text(current + "four\n"))
        let contention = try await fixture[1].contention(of: doc("list.txt"))
        #expect(string(contention.ancestor?.content) == "one\ntwo\nthree\n")
        #expect(string(contention.selected.content) == "one, from 1\ntwo\nthree, from 2\nfour\n")
    }

    @Test func aDocumentNotInConflictOrMissingIsRefused() async throws {
        let fixture = try Fixture(devices: 1)
        try await fixture[1].save(doc("calm.txt"), content: text("calm\n"))
        await #expect(throws: ConcordError.notInConflict("calm.txt")) { try await fixture[1].contention(of: doc("calm.txt")) }
        await #expect(throws: ConcordError.noSuchDocument("absent.txt")) { try await fixture[1].contention(of: doc("absent.txt")) }
    }
}
