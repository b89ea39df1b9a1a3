import Foundation
import Testing

/// `resolve --keep-both`: the current version stays, each other version in contention is saved
/// beside it as a new document named after its device, the extension kept.
@Suite struct KeepBothTests {
    private func twoDevices(_ cli: CLI) throws {
        try cli.ok(["init", "a", "--device", "iPhone", "--remote", "cloud.git", "--package", "*.note"])
        try cli.ok(["clone", "cloud.git", "b", "--device", "iPad"])
    }

    /// A name that is not ASCII keeps its folder (the simulation's seed 3 found it lost).
    @Test func theOtherVersionIsSavedBesideNamedAfterItsDevice() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try twoDevices(cli)
        try cli.diverge("notes/café list.md", base: "base\n", a: "from the phone\n", b: "from the tablet\n")
        try cli.ok(["-C", "a", "sync"])
        // The name is taken already: the next number.
        try cli.ok(["-C", "a", "save", "notes/café list (iPhone).md"], input: "an older copy\n")
        let current = try cli.json(["-C", "a", "versions", "notes/café list.md", "--json"]).first?["device"] as? String ?? ""
        let other = current == "iPhone" ? "iPad" : "iPhone"
        let expected = other == "iPhone" ? "notes/café list (iPhone 2).md" : "notes/café list (iPad).md"
        let dry = try cli.ok(["-C", "a", "resolve", "notes/café list.md", "--keep-both", "--dry-run"])
        #expect(dry.contains("saved beside as '\(expected)'"), "\(dry)")
        let report = try cli.ok(["-C", "a", "resolve", "notes/café list.md", "--keep-both", "--json"])
        let saved = (try JSONSerialization.jsonObject(with: Data(report.utf8)) as? [String: Any])?["savedBeside"] as? [String: String]
        #expect(saved?.values.sorted() == [expected], "\(report)")
        try cli.ok(["-C", "a", "sync"])
        try cli.ok(["-C", "b", "sync"])
        for device in ["a", "b"] {
            #expect(try cli.json(["-C", device, "conflicts", "--json"]).isEmpty)
            #expect(Set([cli.file("\(device)/notes/café list.md"), cli.file("\(device)/\(expected)")]) == ["from the phone\n", "from the tablet\n"])
            #expect(cli.file("\(device)/notes/café list (iPhone).md") == "an older copy\n")
        }
        #expect(try cli.tree("a") == cli.tree("b"))
    }

    /// A package edited on the phone and deleted later on the tablet: the deletion is current and
    /// stays; the edit goes beside, still a package.
    @Test func aPackageBesideKeepsItsExtensionAndADeletionStaysCurrent() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try twoDevices(cli)
        try cli.write("a/trip.note/body.txt", "Lisbon\n")
        try cli.ok(["-C", "a", "save", "trip.note"])
        try cli.ok(["-C", "a", "sync"])
        try cli.ok(["-C", "b", "sync"])
        try cli.write("a/trip.note/body.txt", "Lisbon and Porto\n")
        try cli.ok(["-C", "a", "save", "trip.note"])
        try cli.ok(["-C", "b", "rm", "trip.note"])
        try cli.ok(["-C", "b", "sync"])
        try cli.ok(["-C", "a", "sync"])
        try cli.ok(["-C", "b", "sync"])
        #expect(try cli.json(["-C", "b", "versions", "trip.note", "--json"]).first?["deleted"] as? Bool == true)
        try cli.ok(["-C", "b", "resolve", "--all", "--keep-both"])
        let listed = try cli.json(["-C", "b", "ls", "--json"])
        #expect(listed.compactMap { $0["document"] as? String } == ["trip (iPhone).note"], "\(listed)")
        #expect(listed.first?["package"] as? Bool == true)
        #expect(cli.file("b/trip (iPhone).note/body.txt") == "Lisbon and Porto\n")
        #expect(cli.file("b/trip.note/body.txt") == nil)
        #expect(try cli.json(["-C", "b", "conflicts", "--json"]).isEmpty)
    }
}
