import Concord
import ConcordMerge
import Foundation
import Testing

/// Rules that resolve on their own (`PATTERN POLICY auto` in `.concord/policies`): sync resolves
/// such conflicts before it pushes, in a resolution commit that keeps every version.
@Suite struct AutoResolveTests {
    /// Two devices whose `.concord/policies` holds `rules`, both synced.
    func fixture(rules: String, devices: Int = 2) async throws -> Fixture {
        let fixture = try Fixture(devices: devices)
        try await fixture[1].setPolicies(rules)
        try await fixture.syncAll(rounds: 1)
        return fixture
    }

    /// The contents of every version `document` ever had on a device.
    func contents(_ device: Container, _ document: String) throws -> Set<String> {
        Set(try device.versions(of: doc(document)).compactMap { try string(device.content(of: doc(document), version: $0.id)) })
    }

    @Test func aLatestAutoRuleResolvesInTheSyncThatFindsTheConflictAndKeepsEveryVersion() async throws {
        let fixture = try await fixture(rules: "state.json latest auto\n")
        try await fixture[1].save(doc("state.json"), content: text("{\"v\": 0}\n"))
        try await fixture.syncAll(rounds: 1)
        try await fixture[1].save(doc("state.json"), content: text("{\"v\": 1}\n"))
        try await fixture[2].save(doc("state.json"), content: text("{\"v\": 2}\n"))
        try await fixture[1].sync()
        let report = try await fixture[2].sync()
        #expect(report.outcome == .integrated)
        #expect(report.newConflicts.isEmpty && report.conflicts.isEmpty)
        #expect(report.autoResolved.map(\.document) == [doc("state.json")])
        #expect(report.autoResolved.first?.explanation.hasPrefix("latest:") == true)
        // The latest version: device 2 saved last, by its clock.
        #expect(report.autoResolved.first?.kept?.deviceName == "device2")
        let after = try await fixture[1].sync()
        #expect(after.outcome == .fastForwarded && after.newConflicts.isEmpty)
        for device in fixture.devices {
            await #expect(try device.conflicts().isEmpty)
            await #expect(try string(device.content(of: doc("state.json"))) == "{\"v\": 2}\n")
            #expect(try contents(device, "state.json") == ["{\"v\": 0}\n", "{\"v\": 1}\n", "{\"v\": 2}\n"])
        }
        #expect(try fixture.mainTree(1) == fixture.mainTree(2))
        let subject = try fixture.git(["log", "-1", "--format=%s", "main"], in: fixture[1].root)
        #expect(subject.hasPrefix("Resolve automatically state.json: latest:"))
    }

    @Test func aTextAutoRuleMergesWhatMergesCleanlyAndLeavesTheRestForAPerson() async throws {
        let fixture = try await fixture(rules: "*.md text auto\n")
        try await fixture[1].save(doc("clean.md"), content: text("one\ntwo\nthree\n"))
        try await fixture[1].save(doc("clash.md"), content: text("one\ntwo\nthree\n"))
        try await fixture.syncAll(rounds: 1)
        try await fixture[1].save(doc("clean.md"), content: text("one, from 1\ntwo\nthree\n"))
        try await fixture[2].save(doc("clean.md"), content: text("one\ntwo\nthree, from 2\n"))
        try await fixture[1].save(doc("clash.md"), content: text("one\ntwo, from 1\nthree\n"))
        try await fixture[2].save(doc("clash.md"), content: text("one\ntwo, from 2\nthree\n"))
        try await fixture[1].sync()
        let report = try await fixture[2].sync()
        #expect(report.autoResolved.map(\.document) == [doc("clean.md")])
        #expect(report.autoResolved.first?.policy == "text")
        #expect(report.newConflicts == [doc("clash.md")])
        let left = try #require(report.autoResolveFailures.first)
        #expect(report.autoResolveFailures.count == 1 && left.document == doc("clash.md"))
        #expect(left.rule == "*.md text auto")
        // A later sync tries again and still leaves it, without a new line.
        let again = try await fixture[2].sync()
        #expect(again.autoResolveFailures.isEmpty && again.conflicts == [doc("clash.md")])
        try await fixture[1].sync()
        for device in fixture.devices {
            await #expect(try string(device.content(of: doc("clean.md"))) == "one, from 1\ntwo\nthree, from 2\n")
            await #expect(try device.conflicts().map(\.document) == [doc("clash.md")])
            await #expect(try device.unresolvedVersions(of: doc("clash.md")).count == 2)
        }
    }

    /// An edit of the document not saved yet is never overwritten: a resolution that would write
    /// the document refuses the sync as an integration would (nothing moves, nothing goes up:
    /// the cloud never holds the conflict unresolved), and the sync after the save resolves it.
    @Test func aDocumentWithAnEditNotSavedRefusesTheSyncUntilSaved() async throws {
        let fixture = try await fixture(rules: "*.txt text auto\n")
        try await fixture[1].save(doc("list.txt"), content: text("one\ntwo\nthree\n"))
        try await fixture.syncAll(rounds: 1)
        try await fixture[1].save(doc("list.txt"), content: text("one, from 1\ntwo\nthree\n"))
        try await fixture[1].sync()
        // Device 2's version is the later one: the integration alone would keep its work tree.
        try await fixture[2].save(doc("list.txt"), content: text("one\ntwo\nthree, from 2\n"))
        let head = try fixture.git(["rev-parse", "main"], in: fixture[2].root)
        try Data("one\ntwo\nthree, from 2\nfour, not saved\n".utf8).write(to: URL(fileURLWithPath: "\(fixture[2].root)/list.txt"))
        await #expect(throws: ConcordError.unsavedChanges(["list.txt"])) { try await fixture[2].sync() }
        #expect(try fixture.git(["rev-parse", "main"], in: fixture[2].root) == head)
        #expect(try String(contentsOfFile: "\(fixture[2].root)/list.txt", encoding: .utf8) == "one\ntwo\nthree, from 2\nfour, not saved\n")
        #expect(try await fixture[1].sync().outcome == .upToDate)
        try await fixture[2].save(doc("list.txt"))
        let later = try await fixture[2].sync()
        #expect(later.autoResolved.map(\.document) == [doc("list.txt")])
        await #expect(try fixture[2].conflicts().isEmpty)
        let merged = try await string(fixture[2].content(of: doc("list.txt")))
        #expect(merged == "one, from 1\ntwo\nthree, from 2\nfour, not saved\n", "\(merged ?? "nil")")
    }

    /// A conflict that reached the cloud unresolved (pushed before the rule said `auto`) is
    /// resolved by the next sync of a device that has the rule, even one that only fast-forwards;
    /// the resolution goes up with that sync.
    @Test func aConflictArrivingUnresolvedIsResolvedAndSent() async throws {
        let fixture = try await fixture(rules: "state.json latest\n", devices: 3)
        try await fixture[1].save(doc("state.json"), content: text("0\n"))
        try await fixture.syncAll(rounds: 1)
        try await fixture[1].save(doc("state.json"), content: text("1\n"))
        try await fixture[2].save(doc("state.json"), content: text("2\n"))
        try await fixture[1].sync()
        try await fixture[2].sync()
        await #expect(try fixture[2].conflicts().map(\.document) == [doc("state.json")])
        try await fixture[3].setPolicies("state.json latest auto\n")
        let report = try await fixture[3].sync()
        #expect(report.autoResolved.map(\.document) == [doc("state.json")])
        #expect(report.pushedCommits >= 1)
        for index in [1, 2] {
            let report = try await fixture[index].sync()
            #expect(report.outcome == .fastForwarded && report.autoResolved.isEmpty)
            await #expect(try fixture[index].conflicts().isEmpty)
        }
    }

    /// Two devices resolve the same conflict at once, one on its own (the rule) and one by a
    /// person choosing the latest (the same resolution): they converge with no new conflict,
    /// and the next syncs change nothing (no loop of resolutions).
    @Test func twoDevicesResolvingTheSameConflictConcurrentlyConverge() async throws {
        let fixture = try await fixture(rules: "state.json latest\n", devices: 3)
        try await fixture[1].save(doc("state.json"), content: text("0\n"))
        try await fixture.syncAll(rounds: 1)
        try await fixture[1].save(doc("state.json"), content: text("1\n"))
        try await fixture[2].save(doc("state.json"), content: text("2\n"))
        try await fixture[1].sync()
        try await fixture[2].sync()
        try await fixture[3].sync()
        // Device 3 resolves by hand, offline; device 1 turns the rule to auto and syncs.
        try await fixture[3].setAirplaneMode(true)
        try await fixture[3].resolve(doc("state.json"), using: .latest)
        try await fixture[1].setPolicies("state.json latest auto\n")
        #expect(try await fixture[1].sync().autoResolved.count == 1)
        try await fixture[3].setAirplaneMode(false)
        let meeting = try await fixture[3].sync()
        #expect(meeting.outcome == .integrated)
        #expect(meeting.newConflicts.isEmpty && meeting.conflicts.isEmpty && meeting.autoResolved.isEmpty)
        try await fixture.syncAll(rounds: 1)
        for device in fixture.devices {
            let quiet = try await device.sync()
            #expect(quiet.outcome == .upToDate)
            await #expect(try device.conflicts().isEmpty)
            #expect(try contents(device, "state.json") == ["0\n", "1\n", "2\n"])
        }
        #expect(Set(try (1...3).map(fixture.mainTree)).count == 1)
    }

    /// Without `auto`, the same rule leaves the conflict for a person, as before.
    @Test func aRuleWithoutAutoResolvesNothing() async throws {
        let fixture = try await fixture(rules: "state.json latest\nnotes/* auto\n")
        for path in ["state.json", "notes/a.txt"] {
            try await fixture[1].save(doc(path), content: text("0\n"))
        }
        try await fixture.syncAll(rounds: 1)
        for path in ["state.json", "notes/a.txt"] {
            try await fixture[1].save(doc(path), content: text("1\n"))
            try await fixture[2].save(doc(path), content: text("2\n"))
        }
        try await fixture[1].sync()
        let report = try await fixture[2].sync()
        #expect(report.autoResolved.isEmpty && report.autoResolveFailures.isEmpty)
        #expect(report.newConflicts == [doc("notes/a.txt"), doc("state.json")])
    }

    @Test func theLastSyncIsRecordedWithItsOutcomeOrError() async throws {
        let fixture = try Fixture(devices: 1)
        #expect(fixture[1].lastSync() == nil)
        try await fixture[1].save(doc("a.txt"), content: text("a"))
        let before = Date()
        try await fixture[1].sync()
        let after = Date()
        let pushed = try #require(fixture[1].lastSync())
        #expect(pushed.outcome == "pushed" && pushed.error == nil && pushed.succeeded)
        // Recorded in whole seconds.
        #expect(pushed.time >= before.addingTimeInterval(-1) && pushed.time <= after)
        try await fixture[1].setAirplaneMode(true)
        await #expect(throws: ConcordError.self) { try await fixture[1].sync() }
        let offline = try #require(fixture[1].lastSync())
        #expect(offline.outcome == LastSync.offline && offline.error?.contains("airplane mode") == true && !offline.succeeded)
        await #expect(try fixture[1].status().lastSync == offline)
    }
}
