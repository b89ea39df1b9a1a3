import Concord
import ConcordMerge
import Foundation
import Testing

/// An app's to-do format: a list of items, merged as every item either side has, once.
private struct ShoppingListPolicy: MergePolicy {
    let name = "shopping-list"

    func merge(base: DocumentContent?, versions: [MergeVersion]) -> MergeOutcome {
        var items: [Substring] = []
        for version in versions {
            guard let data = version.content?.fileData else { continue }
            for line in String(decoding: data, as: UTF8.self).split(separator: "\n") where !items.contains(line) { items.append(line) }
        }
        return .merged(.file(Data((items.joined(separator: "\n") + "\n").utf8)))
    }
}

/// A policy an app registers is used by every resolver that reads the rules (issue 40): a
/// resolve by selection and a rule that resolves on its own; a name nobody registered is
/// refused when the rules are set, and leaves only its own documents for a person.
@Suite struct PolicyRegistryTests {
    init() throws { try MergePolicies.register(ShoppingListPolicy()) }

    private func conflict(_ fixture: Fixture, _ document: String) async throws {
        try await fixture[1].save(doc(document), content: text("milk\n"))
        try await fixture.syncAll(rounds: 1)
        try await fixture[1].save(doc(document), content: text("milk\nbread\n"))
        try await fixture[2].save(doc(document), content: text("milk\neggs\n"))
        try await fixture[1].sync()
        try await fixture[2].sync()
    }

    @Test func aResolveBySelectionUsesTheRegisteredPolicy() async throws {
        let fixture = try Fixture(devices: 2)
        try await fixture[1].setPolicies("*.list shopping-list\n")
        try await fixture.syncAll(rounds: 1)
        try await conflict(fixture, "week.list")
        await #expect(try fixture[2].conflicts().map(\.document) == [doc("week.list")])
        let report = try await fixture[2].resolve(doc("week.list"), using: .mergeBySelection)
        #expect(report.policy == "shopping-list")
        let merged = try await string(fixture[2].content(of: doc("week.list")))
        #expect(merged == "milk\nbread\neggs\n" || merged == "milk\neggs\nbread\n")
    }

    @Test func aRuleThatResolvesOnItsOwnUsesTheRegisteredPolicy() async throws {
        let fixture = try Fixture(devices: 2)
        try await fixture[1].setPolicies("*.list shopping-list auto\n")
        try await fixture.syncAll(rounds: 1)
        try await fixture[1].save(doc("week.list"), content: text("milk\n"))
        try await fixture.syncAll(rounds: 1)
        try await fixture[1].save(doc("week.list"), content: text("milk\nbread\n"))
        try await fixture[2].save(doc("week.list"), content: text("milk\neggs\n"))
        try await fixture[1].sync()
        let report = try await fixture[2].sync()
        #expect(report.autoResolved.map(\.document) == [doc("week.list")])
        #expect(report.autoResolved.first?.policy == "shopping-list")
        await #expect(try fixture[2].conflicts().isEmpty)
    }

    /// A mistyped name is refused when the rules are set, nothing changed (the documents a rule
    /// naming an unknown policy matches are left for a person: PolicyRulesTests).
    @Test func aNameNobodyRegisteredIsRefusedWhenSet() async throws {
        let fixture = try Fixture(devices: 1)
        #expect {
            try fixture[1].setPolicies("*.list shopping-lists\n")
        } throws: { error in
            "\(error)".contains("unknown policy \"shopping-lists\"") && "\(error)".contains("shopping-list,")
                || "\(error)".hasSuffix("shopping-list; an app adds its own with MergePolicies.register)")
        }
        await #expect(try fixture[1].policiesText().isEmpty, "nothing changed")
    }
}
