import Concord
import ConcordMerge
import Foundation
import Testing

@Suite struct DocumentTests {
    @Test func aDocumentSavedThreeTimesShowsThreeCommitsInGit() throws {
        let fixture = try Fixture(devices: 1)
        let device = fixture[1]
        for value in ["one", "two", "three"] { try device.save(doc("notes/a.txt"), content: text(value)) }
        let log = try fixture.git(["log", "--format=%H", "--", "notes/a.txt"], in: device.root)
        #expect(log.split(separator: "\n").count == 3)
        try fixture.git(["fsck", "--strict"], in: device.root)
        let versions = try device.versions(of: doc("notes/a.txt"))
        #expect(versions.count == 3)
        #expect(versions[0].isCurrent)
        #expect(versions.allSatisfy { $0.deviceName == "device1" && $0.deviceID == device.device.id })
        #expect(versions[0].clock > versions[1].clock && versions[1].clock > versions[2].clock)
        #expect(try string(device.content(of: doc("notes/a.txt"), version: versions[2].id)) == "one")
        #expect(try String(contentsOfFile: device.root + "/notes/a.txt", encoding: .utf8) == "three")
    }

    @Test func eachSaveChangesOnlyItsDocumentAndCarriesTrailers() throws {
        let fixture = try Fixture(devices: 1)
        let device = fixture[1]
        try device.save(doc("a.txt"), content: text("a"))
        try device.save(doc("b.txt"), content: text("b"))
        let changed = try fixture.git(["show", "--name-only", "--format=%B", "main"], in: device.root)
        #expect(changed.contains("Concord-Device: \(device.device.id)"))
        #expect(changed.contains("Concord-Clock: "))
        #expect(changed.hasSuffix("b.txt\n"))
        #expect(!changed.contains("a.txt"))
    }

    @Test func savingUnchangedContentMakesNoVersion() throws {
        let fixture = try Fixture(devices: 1)
        try fixture[1].save(doc("a.txt"), content: text("a"))
        let again = try fixture[1].save(doc("a.txt"), content: text("a"))
        #expect(again.version == nil)
        #expect(try fixture[1].versions(of: doc("a.txt")).count == 1)
    }

    @Test func aDeletionIsAVersion() throws {
        let fixture = try Fixture(devices: 1)
        try fixture[1].save(doc("a.txt"), content: text("a"))
        let deletion = try fixture[1].remove(doc("a.txt"))
        #expect(deletion.isDeletion)
        let versions = try fixture[1].versions(of: doc("a.txt"))
        #expect(versions.map(\.isDeleted) == [true, false])
        #expect(!FileManager.default.fileExists(atPath: fixture[1].root + "/a.txt"))
        #expect(try string(fixture[1].content(of: doc("a.txt"), version: versions[1].id)) == "a")
    }

    @Test func savingFromTheWorkTree() throws {
        let fixture = try Fixture(devices: 1)
        try "from disk".write(toFile: fixture[1].root + "/w.txt", atomically: true, encoding: .utf8)
        let result = try fixture[1].save(doc("w.txt"))
        #expect(result.version != nil)
        #expect(try string(fixture[1].content(of: doc("w.txt"))) == "from disk")
    }

    @Test func packagesAreSavedReadAndVersionedAsOneUnit() throws {
        let fixture = try Fixture(devices: 1, packages: ["*.note"])
        let device = fixture[1]
        try device.save(doc("trip.note"), content: .package(["text.md": Data("day 1".utf8), "images/a.png": Data([0, 1, 2])]))
        try "day 2".write(toFile: device.root + "/trip.note/text.md", atomically: true, encoding: .utf8)
        try device.save(doc("trip.note"))
        let versions = try device.versions(of: doc("trip.note"))
        #expect(versions.count == 2)
        #expect(versions.allSatisfy { $0.isPackage })
        #expect(try device.content(of: doc("trip.note"), version: versions[1].id) == .package(["text.md": Data("day 1".utf8), "images/a.png": Data([0, 1, 2])]))
        #expect(throws: ConcordError.self) { try device.save(doc("trip.note/text.md"), content: text("x")) }
        #expect(try device.documents().map(\.path.value) == ["trip.note"])
    }

    /// `Container.move` and `Document.move(to:)`: the history goes on under the new name, a
    /// package stays a package, and a refused rename changes nothing.
    @Test func movingADocumentKeepsItsHistory() async throws {
        let fixture = try Fixture(devices: 1, packages: ["*.note"])
        let container = fixture[1]
        try await container.save(doc("draft.txt"), content: text("one"))
        try await container.save(doc("draft.txt"), content: text("two"))
        let moved = try await container.move(doc("draft.txt"), to: doc("letters/anna.txt"))
        #expect(moved.document == doc("letters/anna.txt") && moved.version != nil)
        let versions = try await container.versions(of: doc("letters/anna.txt"))
        #expect(versions.map(\.document.value) == ["letters/anna.txt", "draft.txt", "draft.txt"])
        #expect(versions.first?.renamedFrom == doc("draft.txt"))
        await #expect(try string(container.content(of: doc("letters/anna.txt"), version: versions.last?.id)) == "one")
        #expect(throws: ConcordError.documentExists("letters/anna.txt")) { try container.move(doc("letters/anna.txt"), to: doc("letters/anna.txt")) }
        #expect(throws: ConcordError.noSuchDocument("draft.txt")) { try container.move(doc("draft.txt"), to: doc("x.txt")) }

        try await container.save(doc("trip.note"), content: .package(["body.txt": Data("Lisbon".utf8)]))
        let document = try await container.openDocument(doc("trip.note"))
        let renamed = try await document.move(to: doc("lisbon.note"))
        #expect(document.state == .closed && renamed.path == doc("lisbon.note"))
        #expect(try await renamed.read() == .package(["body.txt": Data("Lisbon".utf8)]))
        #expect(try await renamed.versions().first?.renamedFrom == doc("trip.note"))
        await #expect(throws: ConcordError.self) { _ = try await renamed.move(to: doc("lisbon.txt")) }
    }

    @Test func aSymlinkInsideAPackageIsRefused() throws {
        let fixture = try Fixture(devices: 1, packages: ["*.note"])
        let device = fixture[1]
        try FileManager.default.createDirectory(atPath: device.root + "/x.note", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: device.root + "/x.note/passwd", withDestinationPath: "/etc/passwd")
        #expect(throws: ConcordError.self) { try device.save(doc("x.note")) }
        #expect(try fixture.git(["rev-list", "--count", "main"], in: device.root).hasPrefix("1"))
    }

    @Test(arguments: [
        "/etc/passwd", "../outside", "a/../../b", ".git/config", "x/.git/y", ".concord/conflicts/x", "", "a/./b", "bad\u{FFFD}name", "tab\there", "d/\u{301}x.txt",
        "d\u{600}/x.txt",
    ])
    func invalidDocumentPathsAreRefused(_ path: String) {
        #expect(throws: ConcordError.self) { try DocumentPath(path) }
    }

    /// A path typed in a folder of the container (the command line's relative paths).
    @Test func aPathTypedInAFolderIsReadFromThatFolder() throws {
        #expect(try DocumentPath("note.md", inFolder: "notes").value == "notes/note.md")
        #expect(try DocumentPath("./note.md", inFolder: "").value == "note.md")
        #expect(try DocumentPath("../todo.md", inFolder: "notes").value == "todo.md")
        #expect(try DocumentPath("../b/./c.md", inFolder: "a/x").value == "a/b/c.md")
        #expect(throws: ConcordError.invalidPath("../../x", reason: "'..' leaves the container")) { try DocumentPath("../../x", inFolder: "notes") }
        #expect(throws: ConcordError.invalidPath("..", reason: "it names the container's root folder, not a document")) {
            try DocumentPath("..", inFolder: "notes")
        }
        #expect(throws: ConcordError.self) { try DocumentPath("../.concord/x", inFolder: "notes") }
        #expect(try DocumentPath(".concord/x", inFolder: "notes").value == "notes/.concord/x")
        #expect(throws: ConcordError.self) { try DocumentPath("/etc/passwd", inFolder: "notes") }
    }

    @Test func unknownVersionsAndDocumentsAreClearErrors() throws {
        let fixture = try Fixture(devices: 1)
        try fixture[1].save(doc("a.txt"), content: text("a"))
        try fixture[1].save(doc("b.txt"), content: text("b"))
        let bVersion = try fixture[1].versions(of: doc("b.txt"))[0].id
        #expect(throws: ConcordError.unknownVersion(bVersion, document: "a.txt")) {
            try fixture[1].content(of: doc("a.txt"), version: bVersion)
        }
        #expect(throws: ConcordError.noSuchDocument("nope.txt")) { try fixture[1].versions(of: doc("nope.txt")) }
        #expect(throws: ConcordError.missingInput("nope.txt")) { try fixture[1].save(doc("nope.txt")) }
    }

    @Test func openingAFolderThatIsNotAContainerFails() {
        #expect(throws: ConcordError.self) { try Container.open(at: NSTemporaryDirectory()) }
    }

    /// Saving one document never scans the work tree or the index: in a container of 100,000
    /// documents whose files are absent from the work tree, a save still commits exactly one
    /// change and leaves every other document in place.
    @Test func savingInAHundredThousandDocumentContainerTouchesOnlyThatDocument() throws {
        let fixture = try Fixture(devices: 1)
        let device = fixture[1]
        try LargeContainer.fill(device.root, documents: 100_000)
        try device.save(doc("folder7/new.txt"), content: text("new"))
        let changed = try fixture.git(["diff-tree", "--no-commit-id", "--name-status", "-r", "main~1", "main"], in: device.root)
        #expect(changed == "A\tfolder7/new.txt\n")
        let count = try fixture.git(["ls-tree", "-r", "--name-only", "main"], in: device.root).split(separator: "\n").count
        #expect(count == 100_002)
        #expect(try FileManager.default.contentsOfDirectory(atPath: device.root + "/folder7") == ["new.txt"])
    }

    /// Regression (found by the crash harness): a writer killed while moving `main` leaves
    /// `refs/heads/main.lock`; the next writer must not be blocked by it.
    @Test func aLockFileLeftByAKilledWriterDoesNotBlockTheNextSave() throws {
        let fixture = try Fixture(devices: 1)
        try fixture[1].save(doc("a.txt"), content: text("a"))
        let lock = fixture[1].root + "/.git/refs/heads/main.lock"
        try "stale".write(toFile: lock, atomically: false, encoding: .utf8)
        try fixture[1].save(doc("a.txt"), content: text("b"))
        #expect(try string(fixture[1].content(of: doc("a.txt"))) == "b")
        #expect(!FileManager.default.fileExists(atPath: lock))
    }
}
