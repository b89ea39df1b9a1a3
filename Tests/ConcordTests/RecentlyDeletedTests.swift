import Concord
import ConcordMerge
import Foundation
import Testing

@Suite struct RecentlyDeletedTests {
    @Test func deletedDocumentsAreListedLatestFirstAndComeBackWhenRestored() async throws {
        let fixture = try Fixture(devices: 2, packages: ["*.note"])
        try await fixture[1].save(doc("keep.txt"), content: text("kept"))
        try await fixture[1].save(doc("old/a.txt"), content: text("first a"))
        try await fixture[1].save(doc("old/a.txt"), content: text("last a"))
        try await fixture[1].save(doc("trip.note"), content: .package(["plan.md": Data("plan".utf8)]))
        try await fixture[1].save(doc("back.txt"), content: text("back"))
        try await fixture.syncAll()
        try await fixture[2].remove(doc("old/a.txt"))
        try await fixture[2].remove(doc("back.txt"))
        try await fixture[2].remove(doc("trip.note"))
        try await fixture[2].save(doc("back.txt"), content: text("came back"))
        try await fixture.syncAll()

        let deleted = try await fixture[1].recentlyDeleted()
        #expect(deleted.map(\.document.value) == ["trip.note", "old/a.txt"], "latest first; one saved again is not deleted")
        #expect(deleted.allSatisfy { $0.deletion.deviceName == "device2" && $0.deletion.isDeleted })
        let a = try #require(deleted.first { $0.document == doc("old/a.txt") })
        #expect(try await fixture[1].content(of: a.document, version: a.lastVersion) == text("last a"))

        // Restore: the content it had, saved as a new version; the deletion stays in the history.
        let content = try #require(try await fixture[1].content(of: a.document, version: a.lastVersion))
        try await fixture[1].save(a.document, content: content)
        #expect(try await fixture[1].recentlyDeleted().map(\.document.value) == ["trip.note"])
        #expect(try await fixture[1].versions(of: a.document).contains { $0.isDeleted })
        #expect(try await fixture[1].recentlyDeleted(limit: 1).isEmpty, "only the last commit looked at: the restore")
    }
}
