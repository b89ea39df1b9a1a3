import Concord
import ConcordMerge
import Foundation
import Testing

@Suite struct DocumentQueryTests {
    @Test func aPredicateQueryOverStatesTracksAConflictAppearingAndBeingResolved() async throws {
        let fixture = try Fixture(devices: 2)
        try await fixture[1].save(doc("calm.md"), content: text("calm"))
        let query = fixture[1].query(.path(matching: "*.md") && .inConflict)
        let updates = query.updates()
        var iterator = updates.makeAsyncIterator()
        let gathered = try #require(await iterator.next())
        #expect(gathered.isGathering && gathered.results.isEmpty && query.results.isEmpty)

        try await fixture.diverge("plan.md", base: "base\n", "one\n", "two\n")
        try await fixture.diverge("plan.txt", base: "base\n", "one\n", "two\n")
        let appeared = try #require(await iterator.next())
        #expect(!appeared.isGathering)
        #expect(appeared.results.map(\.path) == [doc("plan.md")], "the .txt conflict is not selected")
        #expect(appeared.changes.contains { if case let .added(info) = $0 { info.path == doc("plan.md") } else { false } })
        #expect(query.results.map(\.path) == [doc("plan.md")])

        try await fixture[1].resolve(doc("plan.md"), using: .latest)
        let resolved = try #require(await iterator.next())
        #expect(resolved.changes == [.removed(doc("plan.md"))])
        #expect(resolved.results.isEmpty && query.results.isEmpty)
        query.stop()
        #expect(await iterator.next() == nil)
    }

    @Test func aBurstOfChangesIsOneUpdate() async throws {
        let fixture = try Fixture(devices: 1)
        let query = fixture[1].query(.path(matching: "*.txt"))
        let updates = query.updates()
        var iterator = updates.makeAsyncIterator()
        _ = await iterator.next()
        // Another process's five saves, one commit each, while the app holds updates back
        // (NSMetadataQuery's disableUpdates); the results follow them meanwhile.
        query.disableUpdates()
        let other = try await Container.open(at: fixture[1].root)
        for index in 1...5 { try await other.save(doc("n\(index).txt"), content: text("\(index)")) }
        try await other.save(doc("skipped.md"), content: text("not selected"))
        for _ in 0..<600 where query.results.count < 5 { try await Task.sleep(for: .milliseconds(50)) }
        #expect(query.results.count == 5)
        query.enableUpdates()
        let update = try #require(await iterator.next())
        #expect(update.changes.count == 5)
        #expect(update.results.map(\.path.value) == ["n1.txt", "n2.txt", "n3.txt", "n4.txt", "n5.txt"])
    }

    @Test func predicatesCombine() throws {
        func entry(_ path: String, _ state: DocumentState = .normal, package: Bool = false) throws -> DocumentInfo {
            DocumentInfo(path: try DocumentPath(path), isPackage: package, state: state, contentID: "")
        }
        let conflictedNote = try entry("a/b.md", .inConflict), calmNote = try entry("c.md"), bundle = try entry("x.note", package: true)
        let notes = DocumentPredicate.path(matching: "*.md")
        #expect([conflictedNote, calmNote, bundle].filter((notes && .inConflict).matches).map(\.path.value) == ["a/b.md"])
        #expect([conflictedNote, calmNote, bundle].filter((!notes || .isPackage).matches).map(\.path.value) == ["x.note"])
        #expect([conflictedNote, calmNote, bundle].filter(DocumentPredicate { $0.path.value.hasPrefix("c") }.matches).map(\.path.value) == ["c.md"])
    }
}
