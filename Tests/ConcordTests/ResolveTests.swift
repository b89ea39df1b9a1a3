import Concord
import ConcordMerge
import Foundation
import Testing

@Suite struct ResolveTests {
    /// Two devices that diverged on `note.txt`, synced so both see the conflict.
    func conflicted(_ one: String, _ two: String, base: String = "base\n", clock: (@Sendable (Int) -> @Sendable () -> Date)? = nil) async throws -> Fixture {
        let fixture = try Fixture(devices: 2, clock: clock)
        try await fixture.diverge("note.txt", base: base, one, two)
        try await #require(fixture[1].conflicts().count == 1)
        return fixture
    }

    /// A version saved over a document in conflict descends, through the integration, from the
    /// version that lost: a merge starts from the versions' common ancestor in their lines of
    /// edits, not from git's merge base (that loser), so the loser's changes are kept.
    @Test func aMergeAfterASaveOverTheConflictKeepsTheLosingVersionsChanges() async throws {
        let fixture = try Fixture(devices: 2)
        try await fixture.diverge("list.txt", base: "one\ntwo\nthree\n", "one, from 1\ntwo\nthree\n", "one\ntwo\nthree, from 2\n")
        await #expect(try fixture[1].conflicts().map(\.document) == [doc("list.txt")])
        let current = try #require(string(await fixture[1].content(of: doc("list.txt"))))
        try await fixture[1].save(doc("list.txt"), content: text(current + "four\n"))
        let report = try await fixture[1].resolve(doc("list.txt"), using: .mergeBySelection)
        #expect(report.policy == "text")
        await #expect(try string(fixture[1].content(of: doc("list.txt"))) == "one, from 1\ntwo\nthree, from 2\nfour\n")
    }

    @Test func resolvingOnOneDeviceClearsTheConflictEverywhereAndKeepsHistory() async throws {
        let fixture = try await conflicted("one\n", "two\n")
        let before = try await fixture[1].unresolvedVersions(of: doc("note.txt"))
        let report = try await fixture[1].resolve(doc("note.txt"), using: .latest)
        #expect(report.removed.count == 1)
        try await fixture.syncAll()
        for device in fixture.devices {
            await #expect(try device.conflicts().isEmpty)
            let versions = try await device.unresolvedVersions(of: doc("note.txt"))
            #expect(versions.count == 1)
            await #expect(try string(device.content(of: doc("note.txt"))) == string(fixture[1].content(of: doc("note.txt"))))
            let history = try await device.versions(of: doc("note.txt")).map(\.id)
            for version in before { #expect(history.contains(version.id)) }
        }
    }

    @Test func latestWinsByClockBetweenConcurrentVersions() async throws {
        let fixture = try await conflicted("one\n", "two\n")
        let versions = try await fixture[1].unresolvedVersions(of: doc("note.txt"))
        let latest = versions.max { $0.rank < $1.rank }!
        let report = try await fixture[1].resolve(doc("note.txt"), using: .latest, dryRun: true)
        #expect(report.kept?.id == latest.id)
        #expect(report.version == nil)
        await #expect(try fixture[1].conflicts().count == 1)
    }

    /// Integration picks a provisional version as versions arrive, two at a time, in whatever order
    /// the devices sync; `resolve --latest` picks among all of them at once. Both must be the one
    /// latest-wins order: on every device, the version shown is the one `--latest` keeps.
    @Test(arguments: [0, 1, 2, 3])
    func theVersionIntegrationShowsIsTheOneLatestKeeps(aheadDevice: Int) async throws {
        let clock = aheadDevice == 0 ? nil : Fixture.clock(ahead: 3 * 3600, onDevice: aheadDevice)
        let fixture = try Fixture(devices: 3, clock: clock)
        try await fixture[1].save(doc("note.txt"), content: text("base"))
        try await fixture.syncAll(rounds: 1)
        for device in 1...3 {
            try await fixture[device].setAirplaneMode(true)
            try await fixture[device].save(doc("note.txt"), content: text("offline edit on device \(device)"))
        }
        for device in [2, 3, 1] {
            try await fixture[device].setAirplaneMode(false)
            try await fixture[device].sync()
        }
        try await fixture.syncAll()
        for device in fixture.devices {
            let versions = try await device.unresolvedVersions(of: doc("note.txt"))
            #expect(versions.count == 3)
            let report = try await device.resolve(doc("note.txt"), using: .latest, dryRun: true)
            #expect(report.kept?.id == versions.first?.id)
            #expect(report.kept?.id == versions.max { $0.rank < $1.rank }?.id)
        }
    }

    /// Device 1's wall clock runs three hours ahead. Device 2 saves after it has seen device 1's
    /// version: causally later, device 2's version must win, whatever the dates say.
    @Test func aClockRunningAheadDoesNotBeatAVersionSavedAfterIt() async throws {
        let fixture = try Fixture(devices: 3, clock: Fixture.clock(ahead: 3 * 3600, onDevice: 1))
        try await fixture[1].save(doc("note.txt"), content: text("base"))
        try await fixture.syncAll(rounds: 1)
        try await fixture[3].setAirplaneMode(true)
        try await fixture[3].save(doc("note.txt"), content: text("offline edit on device 3"))
        try await fixture[1].save(doc("note.txt"), content: text("device 1, clock ahead"))
        try await fixture[1].sync()
        try await fixture[2].sync()
        try await fixture[2].save(doc("note.txt"), content: text("device 2, after seeing device 1"))
        try await fixture[2].sync()
        try await fixture[3].setAirplaneMode(false)
        try await fixture.syncAll()
        let report = try await fixture[3].resolve(doc("note.txt"), using: .latest)
        #expect(report.kept?.deviceName == "device2")
        await #expect(try string(fixture[3].content(of: doc("note.txt"))) == "device 2, after seeing device 1")
        #expect(!report.clockWarnings.isEmpty)
    }

    @Test func twoDifferentResolutionsMakeANewConflictOfTheResolutions() async throws {
        let fixture = try await conflicted("one\n", "two\n")
        try await fixture[1].setAirplaneMode(true)
        try await fixture[2].setAirplaneMode(true)
        try await fixture[1].resolve(doc("note.txt"), using: .content(text("resolved on 1\n")))
        try await fixture[2].resolve(doc("note.txt"), using: .content(text("resolved on 2\n")))
        try await fixture[1].setAirplaneMode(false)
        try await fixture[2].setAirplaneMode(false)
        try await fixture.syncAll()
        for device in fixture.devices {
            let versions = try await device.unresolvedVersions(of: doc("note.txt"))
            #expect(versions.count == 2)
            let contents = Set(try versions.map { try string(device.content(of: doc("note.txt"), version: $0.id)) })
            #expect(contents == ["resolved on 1\n", "resolved on 2\n"])
        }
    }

    @Test func twoIdenticalResolutionsAreNoNewConflict() async throws {
        let fixture = try await conflicted("one\n", "two\n")
        try await fixture[1].setAirplaneMode(true)
        try await fixture[2].setAirplaneMode(true)
        try await fixture[1].resolve(doc("note.txt"), using: .latest)
        try await fixture[2].resolve(doc("note.txt"), using: .latest)
        try await fixture[1].setAirplaneMode(false)
        try await fixture[2].setAirplaneMode(false)
        try await fixture.syncAll()
        await #expect(try fixture[1].conflicts().isEmpty)
        await #expect(try fixture[2].conflicts().isEmpty)
        #expect(try fixture.mainTree(1) == fixture.mainTree(2))
    }

    @Test func aResolutionAndAConcurrentEditMakeANewConflict() async throws {
        let fixture = try await conflicted("one\n", "two\n")
        try await fixture[2].setAirplaneMode(true)
        try await fixture[1].resolve(doc("note.txt"), using: .latest)
        try await fixture[1].sync()
        try await fixture[2].save(doc("note.txt"), content: text("edited while in conflict\n"))
        try await fixture[2].setAirplaneMode(false)
        try await fixture.syncAll()
        let versions = try await fixture[1].unresolvedVersions(of: doc("note.txt"))
        #expect(versions.count == 2)
        let contents = try versions.map { try string(fixture[1].content(of: doc("note.txt"), version: $0.id)) }
        #expect(contents.contains("edited while in conflict\n"))
    }

    @Test func mergeKeepsEditsToDifferentParagraphs() async throws {
        let base = "Title\n\nFirst paragraph.\n\nMiddle.\n\nLast paragraph.\n"
        let fixture = try await conflicted(
            base.replacingOccurrences(of: "First paragraph.", with: "First paragraph, edited on 1."),
            base.replacingOccurrences(of: "Last paragraph.", with: "Last paragraph, edited on 2."), base: base)
        let report = try await fixture[2].resolve(doc("note.txt"), using: .merge(TextMergePolicy()))
        #expect(report.policy == "text")
        let merged = try await string(fixture[2].content(of: doc("note.txt")))
        #expect(merged?.contains("edited on 1") == true && merged?.contains("edited on 2") == true)
        try await fixture.syncAll()
        await #expect(try fixture[1].conflicts().isEmpty)
    }

    @Test func anOverlappingMergeNeedsAPersonAndChangesNothing() async throws {
        let fixture = try await conflicted("one\n", "two\n")
        let before = try fixture.mainTree(1)
        #expect { try fixture[1].resolve(doc("note.txt"), using: .merge(TextMergePolicy())) } throws: { error in
            guard let error = error as? NeedsPersonError, case let .file(data)? = error.markedUp else { return false }
            let marked = String(decoding: data, as: UTF8.self)
            return marked.contains("<<<<<<< device") && marked.contains(">>>>>>> device")
        }
        #expect(try fixture.mainTree(1) == before)
        await #expect(try fixture[1].conflicts().count == 1)
        try await fixture[1].resolve(doc("note.txt"), using: .content(text("one and two\n")))
        await #expect(try fixture[1].conflicts().isEmpty)
    }

    @Test func resolvingSeveralDocumentsIsOneCommitThatNamesEachOnesVersions() async throws {
        let fixture = try Fixture(devices: 2)
        let names = ["a.txt", "notes/b.txt", "c.txt"]
        for name in names { try await fixture.diverge(name, base: "base\n", "one \(name)\n", "two \(name)\n") }
        let contenders = try Dictionary(
            uniqueKeysWithValues: names.map { name in
                (name, Set(try fixture[1].unresolvedVersions(of: doc(name)).map(\.id)))
            })
        func commitCount() throws -> Int? {
            Int(try fixture.git(["rev-list", "--count", "main"], in: fixture[1].root).trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let before = try #require(try commitCount())

        let reports = try await fixture[1].resolve(names.map(doc), using: .latest)

        #expect(reports.map(\.document.value) == names)
        #expect(Set(reports.compactMap(\.version)).count == 1)
        #expect(try commitCount() == before + 1)
        try await fixture.syncAll()
        for device in fixture.devices {
            await #expect(try device.conflicts().isEmpty)
            for name in names {
                let resolution = try await #require(try device.versions(of: doc(name)).first)
                #expect(resolution.id == reports[0].version)
                #expect(Set(resolution.resolves) == contenders[name])
                await #expect(try string(device.content(of: doc(name))) == string(fixture[1].content(of: doc(name))))
            }
        }
    }

    @Test func whenOneOfSeveralNeedsAPersonNoneIsResolved() async throws {
        let fixture = try Fixture(devices: 2)
        try await fixture.diverge("clean.txt", base: "1\n2\n3\n4\n5\n", "1 one\n2\n3\n4\n5\n", "1\n2\n3\n4\n5 two\n")
        try await fixture.diverge("clash.txt", base: "base\n", "one\n", "two\n")
        let before = try fixture.mainTree(1)
        #expect(throws: NeedsPersonError.self) {
            try fixture[1].resolve([doc("clean.txt"), doc("clash.txt")], using: .merge(TextMergePolicy()))
        }
        #expect(try fixture.mainTree(1) == before)
        await #expect(try fixture[1].conflicts().map(\.document.value) == ["clash.txt", "clean.txt"])
    }

    @Test func editDeleteCanBeResolvedEitherWay() async throws {
        let fixture = try Fixture(devices: 2)
        try await fixture.diverge("a.txt", base: "a", "edited", nil)
        let deletion = try await fixture[1].unresolvedVersions(of: doc("a.txt")).first { $0.isDeleted }!
        let report = try await fixture[1].resolve(doc("a.txt"), using: .keep(String(deletion.id.prefix(8))))
        #expect(report.isDeletion)
        #expect(!FileManager.default.fileExists(atPath: fixture[1].root + "/a.txt"))
        try await fixture.syncAll()
        await #expect(try fixture[2].conflicts().isEmpty)
        await #expect(try fixture[2].documents().isEmpty)
    }

    @Test func badResolutionsAreClearErrorsThatChangeNothing() async throws {
        let fixture = try await conflicted("one\n", "two\n")
        try await fixture[1].save(doc("other.txt"), content: text("x"))
        let otherVersion = try await fixture[1].versions(of: doc("other.txt"))[0].id
        let oldVersion = try await fixture[1].versions(of: doc("note.txt")).last!.id
        let before = try fixture.mainTree(1)
        #expect(throws: ConcordError.noSuchDocument("missing.txt")) { try fixture[1].resolve(doc("missing.txt"), using: .latest) }
        #expect(throws: ConcordError.notInConflict("other.txt")) { try fixture[1].resolve(doc("other.txt"), using: .latest) }
        #expect(throws: ConcordError.unknownVersion("ffffffff", document: "note.txt")) { try fixture[1].resolve(doc("note.txt"), using: .keep("ffffffff")) }
        #expect(throws: ConcordError.unknownVersion(otherVersion, document: "note.txt")) { try fixture[1].resolve(doc("note.txt"), using: .keep(otherVersion)) }
        #expect(throws: ConcordError.notAContestedVersion(oldVersion, document: "note.txt")) { try fixture[1].resolve(doc("note.txt"), using: .keep(oldVersion)) }
        #expect(try fixture.mainTree(1) == before)
    }
}
