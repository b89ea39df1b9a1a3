import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Renames keep history (issue 38): `concord mv`, a rename a save finds in the work tree, `log`
/// and `versions --all` following it back, and a rename concurrent with an edit.
@Suite struct RenameTests {
    private func twoDevices(_ cli: CLI) throws {
        try cli.ok(["init", "a", "--device", "Laptop", "--remote", "cloud.git"])
        try cli.ok(["clone", "cloud.git", "b", "--device", "Desktop"])
    }

    /// ``twoDevices(_:)``, both holding `plan.txt` ("v0") synced.
    private func twoDevicesSharingPlan(_ cli: CLI) throws {
        try twoDevices(cli)
        try cli.ok(["-C", "a", "save", "plan.txt"], input: "v0\n")
        try cli.ok(["-C", "a", "sync"])
        try cli.ok(["-C", "b", "sync"])
    }

    private func ids(_ cli: CLI, _ device: String, _ document: String) throws -> [String] {
        try cli.json(["-C", device, "versions", document, "--all", "--json"]).compactMap { $0["id"] as? String }
    }

    @Test func mvRecordsARenameThatLogAndVersionsFollowBack() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try twoDevices(cli)
        try cli.ok(["-C", "a", "save", "todo.txt"], input: "one\n")
        try cli.ok(["-C", "a", "save", "todo.txt"], input: "one\ntwo\n")
        let before = try ids(cli, "a", "todo.txt")
        let renamed = try cli.ok(["-C", "a", "mv", "todo.txt", "lists/todo.md"])
        #expect(renamed.hasPrefix("Renamed todo.txt to lists/todo.md as version "), "\(renamed)")
        #expect(try cli.git(["log", "-1", "--format=%B"], in: "a").contains("Concord-Document: lists/todo.md\nConcord-Renamed: todo.txt"))
        #expect(cli.file("a/todo.txt") == nil && cli.file("a/lists/todo.md") == "one\ntwo\n")
        let history = try cli.json(["-C", "a", "versions", "lists/todo.md", "--all", "--json"])
        #expect(history.count == 3, "\(history)")
        #expect(history.first?["renamedFrom"] as? String == "todo.txt" && history.first?["current"] as? Bool == true)
        #expect(history.first?["replaces"] as? [String] == [before[0]])
        #expect(history.dropFirst().map { $0["name"] as? String } == ["todo.txt", "todo.txt"])
        #expect(history.dropFirst().compactMap { $0["id"] as? String } == before)
        #expect(try cli.ok(["-C", "a", "show", "lists/todo.md", "--version", before[1]]) == "one\n")
        let log = try cli.ok(["-C", "a", "log", "lists/todo.md"])
        #expect(log.contains("(current, renamed from todo.txt)") && log.contains("(as todo.txt)"), "\(log)")
        #expect(try cli.json(["-C", "a", "versions", "todo.txt", "--all", "--json"]).first?["renamedTo"] as? String == "lists/todo.md")
        // Renamed again, on the other device: the history goes back through both names.
        try cli.ok(["-C", "a", "sync"])
        try cli.ok(["-C", "b", "sync"])
        #expect(cli.file("b/lists/todo.md") == "one\ntwo\n" && cli.file("b/todo.txt") == nil)
        try cli.ok(["-C", "b", "mv", "lists/todo.md", "todo.md"])
        #expect(try ids(cli, "b", "todo.md").count == 4)
        #expect(try cli.ok(["-C", "b", "show", "todo.md", "--version", before[1]]) == "one\n")
        #expect(try cli.fsck("a").isEmpty && cli.fsck("b").isEmpty)
    }

    /// Each refusal is one line, exit 1 (2 for a path that leaves the container), and changes
    /// nothing: neither main nor the work tree.
    @Test func mvRefusesAndChangesNothing() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try twoDevices(cli)
        try cli.ok(["-C", "a", "save", "a.txt"], input: "a\n")
        try cli.ok(["-C", "a", "save", "b.txt"], input: "b\n")
        try cli.ok(["-C", "a", "save", "notes/c.txt"], input: "c\n")
        try cli.write("a/loose.txt", "never saved\n")
        let cases: [(arguments: [String], status: Int32, message: String)] = [
            (["b.txt", "a.txt"], 1, "'a.txt' exists already"),
            (["a.txt", "notes"], 1, "'notes' exists already"),
            (["a.txt", "loose.txt"], 1, "'loose.txt' exists already"),
            (["a.txt", "a.txt"], 1, "'a.txt' exists already"),
            (["missing.txt", "x.txt"], 1, "no document 'missing.txt'"),
            (["a.txt", "b.txt/inside.txt"], 1, "'b.txt' is a document, not a folder"),
            (["a.txt", "A.TXT"], 1, "only by case"),
            (["a.txt", "../x.txt"], 2, "leaves the container"),
            (["../a.txt", "x.txt"], 2, "leaves the container"),
            (["a.txt", ".git/x"], 2, "invalid document path"),
            (["a.txt"], 2, "Missing expected argument"),
        ]
        for (arguments, status, message) in cases {
            let main = try cli.git(["rev-parse", "main"], in: "a")
            let result = try cli.run(["-C", "a", "mv"] + arguments)
            #expect(result.status == status && result.stderr.contains(message), "mv \(arguments): \(result.status) \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1 || status == 2, "mv \(arguments): \(result.stderr)")
            #expect(try cli.git(["rev-parse", "main"], in: "a") == main, "mv \(arguments)")
            #expect(cli.file("a/a.txt") == "a\n" && cli.file("a/loose.txt") == "never saved\n" && cli.file("a/x.txt") == nil)
        }
        // Edits not saved, and a document in conflict.
        try cli.write("a/a.txt", "a, edited\n")
        let unsaved = try cli.run(["-C", "a", "mv", "a.txt", "x.txt"])
        #expect(unsaved.status == 1 && unsaved.stderr.contains("not saved: a.txt"), "\(unsaved.stderr)")
        #expect(cli.file("a/a.txt") == "a, edited\n" && cli.file("a/x.txt") == nil)
        try cli.ok(["-C", "a", "save", "a.txt"])
        try cli.diverge("d.txt", base: "base\n", a: "from a\n", b: "from b\n")
        try cli.ok(["-C", "a", "sync"])
        let main = try cli.git(["rev-parse", "main"], in: "a")
        let inConflict = try cli.run(["-C", "a", "mv", "d.txt", "e.txt"])
        #expect(inConflict.status == 1 && inConflict.stderr.contains("is in conflict: resolve it first"), "\(inConflict.stderr)")
        #expect(try cli.git(["rev-parse", "main"], in: "a") == main)
    }

    /// A rename on one device and an edit of the same document on the other, in either order:
    /// no conflict, the edit lands on the new name, and its history holds both.
    @Test(arguments: [true, false])
    func aRenameConcurrentWithAnEditIsNoConflict(renameSyncsFirst: Bool) throws {
        let cli = try CLI()
        defer { cli.remove() }
        try twoDevicesSharingPlan(cli)
        try cli.ok(["-C", "a", "mv", "plan.txt", "trips/plan.txt"])
        try cli.ok(["-C", "b", "save", "plan.txt"], input: "v0\nedited on b\n")
        let edit = try ids(cli, "b", "plan.txt")[0]
        let order = renameSyncsFirst ? ["a", "b", "a"] : ["b", "a", "b"]
        for device in order { try cli.ok(["-C", device, "sync"]) }
        #expect(try cli.tree("a") == cli.tree("b"))
        for device in ["a", "b"] {
            #expect(try cli.json(["-C", device, "conflicts", "--json"]).isEmpty, "\(device)")
            #expect(cli.file("\(device)/trips/plan.txt") == "v0\nedited on b\n" && cli.file("\(device)/plan.txt") == nil, "\(device)")
            let history = try cli.json(["-C", device, "versions", "trips/plan.txt", "--all", "--json"])
            #expect(history.count == 3, "\(device): \(history)")
            #expect(history.first { $0["current"] as? Bool == true }?["id"] as? String == edit, "\(device)")
            #expect(history.contains { $0["renamedFrom"] as? String == "plan.txt" })
        }
        // Later edits of the new name replace the carried one.
        try cli.ok(["-C", "a", "save", "trips/plan.txt"], input: "v0\nedited on b\nthen on a\n")
        let latest = try cli.json(["-C", "a", "versions", "trips/plan.txt", "--all", "--json"]).first
        #expect(latest?["replaces"] as? [String] == [edit])
    }

    /// An edit carried to the new name by one integration, then edited again under the old
    /// name by the device that made it (which had not seen the rename): its later edit lands on
    /// the new name too, no conflict (found by the random simulation: a conflict between a
    /// version and its own next edit).
    @Test func anEditCarriedToTheNewNameThenEditedAgainIsNoConflict() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try twoDevicesSharingPlan(cli)
        try cli.ok(["-C", "b", "save", "plan.txt"], input: "v1 on b\n")
        try cli.ok(["-C", "b", "sync"])
        try cli.ok(["-C", "a", "mv", "plan.txt", "trips/plan.txt"])
        try cli.ok(["-C", "a", "sync"])
        #expect(cli.file("a/trips/plan.txt") == "v1 on b\n")
        try cli.ok(["-C", "b", "save", "plan.txt"], input: "v2 on b\n")
        let edit = try ids(cli, "b", "plan.txt")[0]
        for device in ["b", "a"] { try cli.ok(["-C", device, "sync"]) }
        for device in ["a", "b"] {
            #expect(try cli.json(["-C", device, "conflicts", "--json"]).isEmpty, "\(device)")
            #expect(cli.file("\(device)/trips/plan.txt") == "v2 on b\n" && cli.file("\(device)/plan.txt") == nil, "\(device)")
            let current = try cli.json(["-C", device, "versions", "trips/plan.txt", "--json"])
            #expect(current.count == 1 && current.first?["id"] as? String == edit, "\(device): \(current)")
        }
    }

    /// Both devices changed the content, one under the new name: a conflict of the new name,
    /// which any resolve settles; nothing saved is lost.
    @Test func aRenameAndAnEditThatBothChangedTheContentConflictUnderTheNewName() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try twoDevicesSharingPlan(cli)
        try cli.ok(["-C", "a", "mv", "plan.txt", "trip.txt"])
        try cli.ok(["-C", "a", "save", "trip.txt"], input: "v0, renamed and edited on a\n")
        try cli.ok(["-C", "b", "save", "plan.txt"], input: "v0, edited on b\n")
        for device in ["a", "b", "a"] { try cli.ok(["-C", device, "sync"]) }
        for device in ["a", "b"] {
            let conflicts = try cli.json(["-C", device, "conflicts", "--json"])
            #expect(conflicts.compactMap { $0["document"] as? String } == ["trip.txt"], "\(device): \(conflicts)")
            #expect(cli.file("\(device)/plan.txt") == nil)
        }
        let contention = try cli.json(["-C", "b", "versions", "trip.txt", "--json"]).compactMap { $0["id"] as? String }
        let contents = try Set(contention.map { try cli.ok(["-C", "b", "show", "trip.txt", "--version", $0]) })
        #expect(contents == ["v0, renamed and edited on a\n", "v0, edited on b\n"])
        try cli.ok(["-C", "b", "resolve", "trip.txt", "--merge", "--policy", "union"])
        try cli.ok(["-C", "b", "sync"])
        try cli.ok(["-C", "a", "sync"])
        #expect(cli.file("a/trip.txt") == cli.file("b/trip.txt"))
        #expect(try cli.json(["-C", "a", "conflicts", "--json"]).isEmpty)
    }

    /// The same edit made on both sides, one of them after renaming (found by the random
    /// simulation, seed 8): the same content is no conflict, whichever side syncs first.
    @Test(arguments: [true, false])
    func aRenameAndAnEditToTheSameContentAreNoConflict(renamerSyncsFirst: Bool) throws {
        let cli = try CLI()
        defer { cli.remove() }
        try twoDevicesSharingPlan(cli)
        try cli.ok(["-C", "a", "mv", "plan.txt", "trip.txt"])
        try cli.ok(["-C", "a", "save", "trip.txt"], input: "v1, the same on both\n")
        try cli.ok(["-C", "b", "save", "plan.txt"], input: "v1, the same on both\n")
        for device in renamerSyncsFirst ? ["a", "b", "a"] : ["b", "a", "b"] { try cli.ok(["-C", device, "sync"]) }
        for device in ["a", "b"] {
            #expect(try cli.json(["-C", device, "conflicts", "--json"]).isEmpty, "\(device)")
            #expect(cli.file("\(device)/trip.txt") == "v1, the same on both\n", "\(device)")
            #expect(cli.file("\(device)/plan.txt") == nil, "\(device)")
        }
        #expect(try cli.tree("a") == cli.tree("b"))
    }

    /// The agent sees a rename made with rename(2) in the work tree: the same content gone under
    /// one name and new under another, saved as a rename, which the other device receives.
    @Test func theAgentSavesARenameMadeInTheWorkTree() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try twoDevices(cli)
        let a = try WatchAgent(cli, device: "a")
        let b = try WatchAgent(cli, device: "b")
        defer { a.stop(); b.stop() }
        a.waitFor("watching")
        b.waitFor("watching")
        try cli.write("a/draft.md", "A letter\n")
        cli.waitForFile("b/draft.md", "A letter\n")
        try FileManager.default.createDirectory(atPath: "\(cli.folder)/a/letters", withIntermediateDirectories: true)
        #expect(rename("\(cli.folder)/a/draft.md", "\(cli.folder)/a/letters/to-anna.md") == 0)
        cli.waitForFile("b/letters/to-anna.md", "A letter\n")
        #expect(eventually { cli.file("b/draft.md") == nil })
        #expect(a.stop() == 0)
        #expect(b.stop() == 0)
        let history = try cli.json(["-C", "b", "versions", "letters/to-anna.md", "--all", "--json"])
        #expect(history.count == 2 && history.first?["renamedFrom"] as? String == "draft.md", "\(history)")
        #expect(try cli.git(["log", "-1", "--format=%B", "main"], in: "a").contains("Concord-Renamed: draft.md"))
    }

    /// `save --all` after a rename in the work tree says so; two files of one content gone and
    /// new are no rename (which is which cannot be told), nor is an empty file.
    @Test func saveAllFindsARenameOnlyWhenItIsUnambiguous() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "a", "--device", "Laptop"])
        for (name, text) in [("one.txt", "unique\n"), ("twin1.txt", "same\n"), ("twin2.txt", "same\n"), ("empty.txt", "")] {
            try cli.write("a/\(name)", text)
        }
        try cli.ok(["-C", "a", "save", "--all"])
        for (old, new) in [("one.txt", "uno.txt"), ("twin1.txt", "t1.txt"), ("twin2.txt", "t2.txt"), ("empty.txt", "vacío.txt")] {
            #expect(rename("\(cli.folder)/a/\(old)", "\(cli.folder)/a/\(new)") == 0)
        }
        let saved = try cli.ok(["-C", "a", "save", "--all"])
        #expect(saved.contains("4 added, 0 changed, 4 removed, 1 renamed\n  renamed  one.txt to uno.txt\n"), "\(saved)")
        #expect(try cli.json(["-C", "a", "versions", "uno.txt", "--all", "--json"]).count == 2)
        #expect(try cli.json(["-C", "a", "versions", "t1.txt", "--all", "--json"]).count == 1)
    }
}
