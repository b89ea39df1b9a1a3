import Concord
import ConcordMerge
import Foundation
import Testing

/// Undo of a resolution (the resolver page's undo, `concord resolve DOC --undo`): the same
/// versions in contention again, on every device, nothing lost.
@Suite struct UndoResolutionTests {
    @Test func anUndoneResolutionPutsTheSameVersionsBackInContentionOnEveryDevice() async throws {
        let fixture = try Fixture(devices: 2)
        try await fixture.diverge("list.txt", base: "milk\n", "milk\neggs\n", "bread\nmilk\n")
        let before = try await fixture[1].unresolvedVersions(of: doc("list.txt"))
        let beforeContent = try await fixture[1].content(of: doc("list.txt"))
        try await fixture[1].resolve(doc("list.txt"), using: .merge(TextMergePolicy()))
        #expect(try await fixture[1].conflicts().isEmpty)

        let undone = try await fixture[1].undoResolution(of: doc("list.txt"))
        #expect(undone.version != nil)
        #expect(try await fixture[1].conflicts().map(\.document) == [doc("list.txt")])
        #expect(try await fixture[1].content(of: doc("list.txt")) == beforeContent)
        let after = try await fixture[1].unresolvedVersions(of: doc("list.txt"))
        #expect(after.dropFirst().map(\.id) == before.dropFirst().map(\.id), "the same versions wait beside the current one")
        #expect(after.first?.id == undone.version)
        // The resolution stays in the history.
        #expect(try await fixture[1].versions(of: doc("list.txt")).contains { $0.resolves.count > 0 })

        try await fixture.syncAll()
        #expect(try await fixture[2].conflicts().map(\.document) == [doc("list.txt")])
        try await fixture[2].resolve(doc("list.txt"), using: .latest)
        try await fixture.syncAll()
        #expect(try await fixture[1].conflicts().isEmpty)
    }

    @Test func anUndoWithNothingToUndoIsRefusedAndChangesNothing() async throws {
        let fixture = try Fixture(devices: 2)
        try await fixture[1].save(doc("plain.txt"), content: text("never in conflict"))
        try await fixture.diverge("list.txt", base: "milk\n", "eggs\n", "bread\n")
        let tree = try fixture.mainTree(1)
        await #expect { try await fixture[1].undoResolution(of: doc("plain.txt")) } throws: { "\($0)".contains("is no resolution") }
        await #expect { try await fixture[1].undoResolution(of: doc("list.txt")) } throws: { "\($0)".contains("is in conflict") }
        await #expect { try await fixture[1].undoResolution(of: doc("missing.txt")) } throws: { "\($0)".contains("missing.txt") }
        try await fixture[1].resolve(doc("list.txt"), using: .latest)
        try await fixture[1].save(doc("list.txt"), content: text("edited since"))
        let edited = try fixture.mainTree(1)
        await #expect { try await fixture[1].undoResolution(of: doc("list.txt")) } throws: { "\($0)".contains("is no resolution") }
        #expect(try fixture.mainTree(1) == edited && edited != tree)
    }
}
