import Concord
import ConcordMerge
import Foundation
import Testing

/// Two devices resolve a file-and-folder clash at once, each deleting the folder's files; when
/// one device's integration of both resolutions meets the other's later save, the current
/// version of a deleted file is the deletion of the resolution current for the name (seed 7 of
/// the random simulation).
@Suite struct ConcurrentClashResolutionTests {
    @Test func theDeletionOfAFolderFileFollowsTheResolutionCurrentForTheName() async throws {
        let fixture = try Fixture(devices: 2)
        try await fixture[1].save(doc("note.txt"), content: text("base"))
        try await fixture.syncAll(rounds: 1)
        // The file is saved last: the latest, which each resolution keeps.
        try await fixture[2].save(doc("plans/a.txt"), content: text("in a folder"))
        try await fixture[1].save(doc("plans"), content: text("a file"))
        try await fixture.syncAll()
        #expect(try await fixture[1].conflicts().map(\.document) == [doc("plans")])
        #expect(try await fixture[2].conflicts().map(\.document) == [doc("plans")])

        // Both resolve; 1's resolution reaches the cloud first, 2 integrates both and sends it.
        try await fixture[1].resolve(doc("plans"), using: .latest)
        try await fixture[1].sync()
        try await fixture[2].resolve(doc("plans"), using: .latest)
        try await fixture[2].sync()
        // 1 saved meanwhile: its sync integrates 2's integration, which had seen 1's resolution.
        try await fixture[1].save(doc("note.txt"), content: text("meanwhile"))
        try await fixture[1].sync()
        try await fixture[2].sync()

        for device in fixture.devices {
            let name = try #require(try await device.versions(of: doc("plans")).first { $0.isCurrent })
            let file = try #require(try await device.versions(of: doc("plans/a.txt")).first { $0.isCurrent })
            #expect(file.isDeleted)
            #expect(file.id == name.id, "plans/a.txt's current deletion \(file.id.prefix(7)) is not the resolution current for plans, \(name.id.prefix(7))")
        }
    }
}
