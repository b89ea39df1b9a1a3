import Concord
import ConcordMerge
import Foundation
import Testing

@Suite struct SyncTests {
    /// The seed scenario: device 1 in airplane mode edits, device 2 edits and syncs, device 1 syncs.
    @Test func theAirplaneScenarioPutsTheNoteInConflictOnEveryDevice() async throws {
        let fixture = try Fixture(devices: 2)
        try await fixture[1].save(doc("note.txt"), content: text("hello\n"))
        try await fixture.syncAll(rounds: 1)
        try await fixture[1].setAirplaneMode(true)
        try await fixture[1].save(doc("note.txt"), content: text("hello from device 1\n"))
        await #expect(throws: ConcordError.offline(reason: "airplane mode", waiting: 1)) { try await fixture[1].sync() }
        try await fixture[2].save(doc("note.txt"), content: text("hello from device 2\n"))
        try await fixture[2].sync()
        try await fixture[1].setAirplaneMode(false)
        let report = try await fixture[1].sync()
        #expect(report.outcome == .integrated)
        #expect(report.newConflicts == [doc("note.txt")])
        let second = try await fixture[2].sync()
        #expect(second.newConflicts == [doc("note.txt")])
        for device in fixture.devices {
            let conflicts = try await device.conflicts()
            #expect(conflicts.map(\.document) == [doc("note.txt")])
            #expect(conflicts.first?.versionCount == 2)
            let versions = try await device.unresolvedVersions(of: doc("note.txt"))
            #expect(Set(versions.map(\.deviceName)) == ["device1", "device2"])
            #expect(versions[0].isCurrent && versions[1].isConflict)
        }
        #expect(try fixture.mainTree(1) == fixture.mainTree(2))
        let onDisk1 = try String(contentsOfFile: fixture[1].root + "/note.txt", encoding: .utf8)
        let onDisk2 = try String(contentsOfFile: fixture[2].root + "/note.txt", encoding: .utf8)
        #expect(onDisk1 == onDisk2)
        await #expect(try fixture[1].documents().first { $0.path == doc("note.txt") }?.state == .inConflict)
    }

    @Test func editsOfDifferentDocumentsMergeWithoutConflict() async throws {
        let fixture = try Fixture(devices: 2)
        try await fixture[1].save(doc("a.txt"), content: text("a"))
        try await fixture.syncAll(rounds: 1)
        try await fixture[1].save(doc("a.txt"), content: text("a1"))
        try await fixture[2].save(doc("b.txt"), content: text("b2"))
        try await fixture.syncAll()
        for device in fixture.devices {
            await #expect(try device.conflicts().isEmpty)
            await #expect(try string(device.content(of: doc("a.txt"))) == "a1")
            await #expect(try string(device.content(of: doc("b.txt"))) == "b2")
        }
        #expect(try fixture.mainTree(1) == fixture.mainTree(2))
    }

    @Test func identicalEditsAreNoConflict() async throws {
        let fixture = try Fixture(devices: 2)
        try await fixture.diverge("a.txt", base: "a", "same", "same")
        await #expect(try fixture[1].conflicts().isEmpty)
        await #expect(try fixture[2].conflicts().isEmpty)
    }

    @Test func editDeleteIsAConflictWithTheDeletionListed() async throws {
        let fixture = try Fixture(devices: 2)
        try await fixture.diverge("a.txt", base: "a", "edited", nil)
        for device in fixture.devices {
            let versions = try await device.unresolvedVersions(of: doc("a.txt"))
            #expect(versions.count == 2)
            #expect(versions.filter(\.isDeleted).count == 1)
            #expect(versions.first { $0.isDeleted }?.deviceName == "device2")
        }
    }

    /// A device that did not touch a document since its last sync (it saved another one) holds a
    /// version whose content another device reached again, concurrently and later, after a
    /// conflict: the cloud's choice (the later version current, the two others in conflict)
    /// stands when the first device integrates, instead of its own older version coming back as
    /// current and the later one being dropped (soak seed 140).
    @Test func anUnchangedSideTakesTheOthersCurrentVersionEvenWithTheSameContent() async throws {
        let fixture = try Fixture(devices: 3)
        try await fixture[1].save(doc("bread.md"), content: text("flour"))
        try await fixture.syncAll(rounds: 1)
        try await fixture[3].setAirplaneMode(true)
        try await fixture[1].save(doc("bread.md"), content: text("flour, water"))
        try await fixture[1].sync()
        try await fixture[2].save(doc("bread.md"), content: text("flour, salt"))
        #expect(try await fixture[2].sync().newConflicts == [doc("bread.md")])
        try await fixture[3].save(doc("bread.md"), content: text("flour, water"))
        try await fixture[3].setAirplaneMode(false)
        #expect(try await fixture[3].sync().newConflicts == [doc("bread.md")])
        try await fixture[1].save(doc("journal.txt"), content: text("baked"))
        #expect(try await fixture[1].sync().outcome == .integrated)
        try await fixture.syncAll()
        for device in fixture.devices {
            let versions = try await device.unresolvedVersions(of: doc("bread.md"))
            #expect(versions.first?.deviceName == "device3" && versions.first?.isCurrent == true, "\(device.root)")
            #expect(Set(versions.map(\.deviceName)) == ["device1", "device2", "device3"], "\(device.root)")
        }
    }

    /// Both devices add the same document with the same content without seeing each other;
    /// then one deletes it and the other edits it. The merge base lacks the document, and the
    /// deleting side's tree lacks it too: its deletion is still a version, concurrent with the edit.
    @Test(arguments: [true, false])
    func deletingADocumentAddedOnBothSidesSinceTheBaseIsAConflict(deleterSyncsFirst: Bool) async throws {
        let fixture = try Fixture(devices: 2)
        try await fixture[1].save(doc("base.txt"), content: text("base"))
        try await fixture.syncAll(rounds: 1)
        for device in fixture.devices { try await device.save(doc("both.txt"), content: text("same")) }
        try await fixture[1].remove(doc("both.txt"))
        try await fixture[2].save(doc("both.txt"), content: text("edited on device 2"))
        for index in deleterSyncsFirst ? [1, 2] : [2, 1] { try await fixture[index].sync() }
        try await fixture.syncAll()
        for device in fixture.devices {
            await #expect(try device.conflicts().map(\.document) == [doc("both.txt")])
            let versions = try await device.unresolvedVersions(of: doc("both.txt"))
            #expect(versions.count == 2)
            #expect(versions.first { $0.isDeleted }?.deviceName == "device1")
        }
    }

    /// A document another device added and deleted while this one, offline, never had it: after
    /// the integration it is absent on both sides, and its current version is still the deletion,
    /// on every device (the walk must not take the side that never had it).
    @Test func aDocumentOneSideNeverHadKeepsItsDeletionAsCurrentVersion() async throws {
        let fixture = try Fixture(devices: 2)
        try await fixture[1].save(doc("base.txt"), content: text("base"))
        try await fixture.syncAll(rounds: 1)
        try await fixture[2].setAirplaneMode(true)
        try await fixture[2].save(doc("offline.txt"), content: text("written offline"))
        try await fixture[1].save(doc("brief.txt"), content: text("here for a moment"))
        try await fixture[1].remove(doc("brief.txt"))
        try await fixture[1].sync()
        try await fixture[2].setAirplaneMode(false)
        try await fixture.syncAll()
        for device in fixture.devices {
            let versions = try await device.versions(of: doc("brief.txt"))
            #expect(versions.count == 2)
            #expect(versions.first?.isDeleted == true && versions.first?.isCurrent == true)
        }
    }

    @Test func addAddIsAConflict() async throws {
        let fixture = try Fixture(devices: 2)
        try await fixture[1].save(doc("new.txt"), content: text("one"))
        try await fixture[2].save(doc("new.txt"), content: text("two"))
        try await fixture.syncAll()
        await #expect(try fixture[1].conflicts().map(\.document) == [doc("new.txt")])
        await #expect(try fixture[2].conflicts().map(\.document) == [doc("new.txt")])
    }

    @Test func packagesConflictAsOneUnit() async throws {
        let fixture = try Fixture(devices: 2, packages: ["*.note"])
        try await fixture[1].save(doc("trip.note"), content: .package(["a.txt": Data("a".utf8)]))
        try await fixture.syncAll(rounds: 1)
        try await fixture[1].save(doc("trip.note"), content: .package(["a.txt": Data("a1".utf8)]))
        try await fixture[2].save(doc("trip.note"), content: .package(["a.txt": Data("a".utf8), "b.txt": Data("b".utf8)]))
        try await fixture.syncAll()
        await #expect(try fixture[1].conflicts().map(\.document) == [doc("trip.note")])
        #expect(try fixture.mainTree(1) == fixture.mainTree(2))
    }

    /// Two package patterns that differ by Unicode normalization alone match different names
    /// (a save with only the other one refuses the package): both hold in an integration, where
    /// two edits inside the package conflict as one unit.
    @Test func packagePatternsInTwoNormalizationsBothHoldInAnIntegration() async throws {
        let (composed, decomposed) = ("caf\u{E9}.note", "cafe\u{301}.note")
        let fixture = try Fixture(devices: 2, packages: [composed, decomposed])
        let package = doc(decomposed)
        try await fixture[1].save(package, content: .package(["a.txt": Data("a".utf8), "b.txt": Data("b".utf8)]))
        try await fixture.syncAll(rounds: 1)
        try await fixture[1].save(package, content: .package(["a.txt": Data("a1".utf8), "b.txt": Data("b".utf8)]))
        try await fixture[2].save(package, content: .package(["a.txt": Data("a".utf8), "b.txt": Data("b2".utf8)]))
        try await fixture.syncAll()
        for device in fixture.devices {
            await #expect(try device.conflicts().map(\.document) == [package])
        }
        #expect(try fixture.mainTree(1) == fixture.mainTree(2))
    }

    /// A package holding two files whose names differ by Unicode normalization alone (two files
    /// to git and Linux, one `String` key to a package's content): resolving its conflict is
    /// refused in one line naming them, and nothing changes. The content kept one of the two, and
    /// the resolution wrote the package without the other.
    @Test func aPackageWithFilesNamedInTwoNormalizationsIsRefusedNotHalfWritten() async throws {
        let fixture = try Fixture(devices: 2, packages: ["*.note"])
        let (composed, decomposed) = ("caf\u{E9}.txt", "cafe\u{301}.txt")
        func write(_ device: Int, _ name: String, _ text: String) throws {
            let folder = "\(fixture.folder)/device\(device)/trip.note"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: URL(fileURLWithPath: "\(folder)/\(name)"))
        }
        try write(1, composed, "one")
        try write(1, decomposed, "two")
        _ = try await fixture[1].saveAll()
        try await fixture.syncAll(rounds: 1)
        try write(1, composed, "one, edited on 1")
        _ = try await fixture[1].saveAll()
        try write(2, decomposed, "two, edited on 2")
        _ = try await fixture[2].saveAll()
        try await fixture.syncAll()
        await #expect(try fixture[1].conflicts().map(\.document) == [doc("trip.note")])
        let before = try fixture.mainTree(1)
        await #expect {
            try await fixture[1].resolve(doc("trip.note"), using: .latest)
        } throws: { error in
            guard case let ConcordError.invalidPackage(name, reason)? = error as? ConcordError else { return false }
            return name == "trip.note" && reason.contains("differ only by Unicode normalization")
        }
        #expect(try fixture.mainTree(1) == before)
        await #expect(try fixture[1].conflicts().map(\.document) == [doc("trip.note")])
        let names = try FileManager.default.contentsOfDirectory(atPath: "\(fixture.folder)/device1/trip.note")
        #expect(Set(names.map { Array($0.utf8) }) == [Array(composed.utf8), Array(decomposed.utf8)])
    }

    @Test(arguments: [2, 3])
    func devicesConvergeAndNothingIsLost(devices count: Int) async throws {
        let fixture = try Fixture(devices: count)
        try await fixture[1].save(doc("shared.txt"), content: text("base"))
        try await fixture.syncAll(rounds: 1)
        var saved: [String] = []
        for (index, device) in fixture.devices.enumerated() {
            let value = "edit by device \(index + 1)"
            try await device.save(doc("shared.txt"), content: text(value))
            try await device.save(doc("own\(index).txt"), content: text(value))
            saved.append(value)
        }
        try await fixture.syncAll()
        let trees = try (1...count).map { try fixture.mainTree($0) }
        #expect(Set(trees).count == 1)
        let conflictSets = try fixture.devices.map { try $0.conflicts() }
        #expect(conflictSets.allSatisfy { $0 == conflictSets[0] })
        #expect(conflictSets[0].first?.versionCount == count)
        for device in fixture.devices {
            let contents = try await device.versions(of: doc("shared.txt")).compactMap { try string(device.content(of: doc("shared.txt"), version: $0.id)) }
            for value in saved { #expect(contents.contains(value)) }
        }
    }

    @Test func anUnreachableCloudIsReportedAndTheNextSyncSucceeds() async throws {
        let fixture = try Fixture(devices: 1)
        try await fixture[1].save(doc("a.txt"), content: text("a"))
        let moved = fixture.cloud + ".away"
        try FileManager.default.moveItem(atPath: fixture.cloud, toPath: moved)
        await #expect { try await fixture[1].sync() } throws: { error in
            guard case let ConcordError.offline(reason, waiting)? = error as? ConcordError else { return false }
            return reason.contains("cannot reach the cloud") && waiting == 1
        }
        try FileManager.default.moveItem(atPath: moved, toPath: fixture.cloud)
        let report = try await fixture[1].sync()
        #expect(report.outcome == .pushed)
    }

    @Test func syncRefusesToOverwriteUnsavedEdits() async throws {
        let fixture = try Fixture(devices: 2)
        try await fixture[1].save(doc("a.txt"), content: text("a"))
        try await fixture.syncAll(rounds: 1)
        try await fixture[1].save(doc("a.txt"), content: text("remote edit"))
        try await fixture[1].sync()
        try "unsaved local edit".write(toFile: fixture[2].root + "/a.txt", atomically: true, encoding: .utf8)
        await #expect(throws: ConcordError.unsavedChanges(["a.txt"])) { try await fixture[2].sync() }
        #expect(try String(contentsOfFile: fixture[2].root + "/a.txt", encoding: .utf8) == "unsaved local edit")
        try await fixture[2].save(doc("a.txt"))
        try await fixture.syncAll()
        await #expect(try fixture[2].conflicts().map(\.document) == [doc("a.txt")])
    }

    /// Regression (found by the random simulation): a version that its own device replaced
    /// before syncing is no conflict version, whichever side wins the provisional content.
    @Test(arguments: [0, 3 * 3600])
    func aVersionReplacedByItsOwnDeviceIsNotAConflictVersion(phoneClockAhead seconds: Int) async throws {
        let fixture = try Fixture(devices: 2, clock: Fixture.clock(ahead: TimeInterval(seconds), onDevice: 2))
        try await fixture[1].save(doc("bread.md"), content: text("a\n"))
        try await fixture[1].sync()
        try await fixture[2].save(doc("bread.md"), content: text("p\n"))
        try await fixture[1].save(doc("bread.md"), content: text("a2\n"))
        try await fixture[2].sync()
        try await fixture[1].sync()
        try await fixture[2].sync()
        for device in fixture.devices {
            let versions = try await device.unresolvedVersions(of: doc("bread.md"))
            let contents = Set(try versions.map { try string(device.content(of: doc("bread.md"), version: $0.id)) })
            #expect(contents == ["a2\n", "p\n"])
            await #expect(try device.conflicts().first?.versionCount == 2)
        }
    }

    /// Issue 17: a conflict that arrives through the cloud's side of an integration (already in
    /// conflict there), or gains a version that way, is in the integrating device's `newConflicts`,
    /// as it is in a fast-forward's; a conflict the sync leaves as it was is not.
    @Test func anIntegratingSyncReportsTheConflictsArrivingFromTheCloud() async throws {
        let fixture = try Fixture(devices: 4)
        try await fixture[1].save(doc("note.txt"), content: text("base\n"))
        try await fixture.syncAll(rounds: 1)
        for index in [1, 2, 4] { try await fixture[index].save(doc("note.txt"), content: text("from device \(index)\n")) }
        try await fixture[2].sync()
        let first = try await fixture[1].sync()
        #expect(first.outcome == .integrated && first.newConflicts == [doc("note.txt")])

        // Device 3 has its own change, so its sync integrates: the conflict arrives whole.
        try await fixture[3].save(doc("other.txt"), content: text("3a\n"))
        let arrived = try await fixture[3].sync()
        #expect(arrived.outcome == .integrated)
        #expect(arrived.conflicts == [doc("note.txt")])
        #expect(arrived.newConflicts == [doc("note.txt")])

        // Device 4's concurrent version joins the conflict; device 3 integrates it.
        let joined = try await fixture[4].sync()
        #expect(joined.outcome == .integrated && joined.newConflicts == [doc("note.txt")])
        try await fixture[3].save(doc("other.txt"), content: text("3b\n"))
        let gained = try await fixture[3].sync()
        #expect(gained.outcome == .integrated)
        #expect(gained.newConflicts == [doc("note.txt")])
        await #expect(try fixture[3].conflicts().first?.versionCount == 3)

        // The cloud moves without touching the conflict: nothing new to report.
        try await fixture[2].save(doc("two.txt"), content: text("2\n"))
        try await fixture[2].sync()
        try await fixture[3].save(doc("other.txt"), content: text("3c\n"))
        let unchanged = try await fixture[3].sync()
        #expect(unchanged.outcome == .integrated)
        #expect(unchanged.conflicts == [doc("note.txt")])
        #expect(unchanged.newConflicts.isEmpty)
    }
}
