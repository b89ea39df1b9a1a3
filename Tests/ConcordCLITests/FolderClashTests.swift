import Foundation
import Testing

/// A name that is a file on one device and a folder of documents on another (issue 38): saved
/// and synced like any change, a conflict when concurrent that every form of `resolve` settles,
/// and never a stop for the other documents.
@Suite struct FolderClashTests {
    /// How a clash is resolved, on which device.
    enum Way: String, CaseIterable, Sendable {
        case latest, keepFolder, keepFile, file, merge, allLatest, keepBoth
    }

    private func twoDevices(_ cli: CLI) throws {
        try cli.ok(["init", "a", "--device", "Laptop", "--remote", "cloud.git"])
        try cli.ok(["clone", "cloud.git", "b", "--device", "Desktop"])
    }

    /// `a` saves a file `todo`, `b` a folder `todo/` of two notes (the file first when
    /// `fileFirst`, so the folder is the later version), then `a`, `b` and `a` sync.
    /// - Returns: the file's and the folder's version ids.
    private func clash(_ cli: CLI, fileFirst: Bool) throws -> (file: String, folder: String) {
        func saveFile() throws { try cli.ok(["-C", "a", "save", "todo"], input: "call the bank\n") }
        func saveFolder() throws {
            try cli.write("b/todo/monday.md", "dentist\n")
            try cli.write("b/todo/tuesday.md", "groceries\n")
            let saved = try cli.ok(["-C", "b", "save", "--all"])
            #expect(saved.contains("2 added"), "\(saved)")
        }
        if fileFirst {
            try saveFile()
            try saveFolder()
        } else {
            try saveFolder()
            try saveFile()
        }
        try cli.ok(["-C", "a", "sync"])
        let report = try cli.ok(["-C", "b", "sync"])
        #expect(report.contains("in conflict  todo"), "\(report)")
        try cli.ok(["-C", "a", "sync"])
        let versions = try cli.json(["-C", "a", "versions", "todo", "--json"])
        let file = versions.first { $0["folder"] == nil }?["id"] as? String ?? ""
        let folder = versions.first { $0["folder"] as? Bool == true }?["id"] as? String ?? ""
        return (file, folder)
    }

    private func workFiles(_ cli: CLI, _ device: String) -> [String] {
        let root = "\(cli.folder)/\(device)"
        let files = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
        return files.filter { !$0.hasPrefix(".git") && !$0.hasPrefix(".concord") }.filter { path in
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: "\(root)/\(path)", isDirectory: &isFolder) && !isFolder.boolValue
        }.sorted()
    }

    @Test func aFileReplacedByAFolderOnOneDeviceIsSavedAndSyncedBothWays() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try twoDevices(cli)
        try cli.ok(["-C", "a", "save", "todo"], input: "call the bank\n")
        try cli.ok(["-C", "a", "sync"])
        try cli.ok(["-C", "b", "sync"])
        // b replaces the file by a folder of notes: one version that deletes the file and adds them.
        try FileManager.default.removeItem(atPath: "\(cli.folder)/b/todo")
        try cli.write("b/todo/monday.md", "dentist\n")
        try cli.write("b/todo/tuesday.md", "groceries\n")
        #expect(try cli.ok(["-C", "b", "save", "--all"]).contains("2 added, 0 changed, 1 removed"))
        try cli.ok(["-C", "b", "sync"])
        let received = try cli.ok(["-C", "a", "sync"])
        #expect(received.contains("updated      todo\n") && received.contains("todo/monday.md"), "\(received)")
        #expect(workFiles(cli, "a") == ["todo/monday.md", "todo/tuesday.md"])
        #expect(try cli.json(["-C", "a", "conflicts", "--json"]).isEmpty)
        let history = try cli.json(["-C", "a", "versions", "todo", "--all", "--json"])
        #expect(history.map { $0["folder"] as? Bool ?? false } == [true, false], "\(history)")
        #expect(history.first?["current"] as? Bool == true && history.first?["deleted"] as? Bool == true)
        #expect(try cli.ok(["-C", "a", "log", "todo"]).contains("(current, a folder of documents)"))
        let shown = try cli.run(["-C", "a", "show", "todo"])
        #expect(shown.status == 1 && shown.stderr.contains("it is a folder of documents"), "\(shown.stderr)")
        // A note of the folder saved alone on a device that still has the file in main.
        try cli.ok(["-C", "b", "save", "todo/monday.md"], input: "dentist at 9\n")
        try cli.ok(["-C", "b", "sync"])
        try cli.ok(["-C", "a", "sync"])
        #expect(cli.file("a/todo/monday.md") == "dentist at 9\n")
        // And back: a replaces the folder by a file; its notes are deleted, as versions.
        try FileManager.default.removeItem(atPath: "\(cli.folder)/a/todo")
        try cli.write("a/todo", "call the bank, then the dentist\n")
        #expect(try cli.ok(["-C", "a", "save", "--all"]).contains("1 added, 0 changed, 2 removed"))
        try cli.ok(["-C", "a", "sync"])
        try cli.ok(["-C", "b", "sync"])
        #expect(workFiles(cli, "b") == ["todo"])
        #expect(cli.file("b/todo") == "call the bank, then the dentist\n")
        let notes = try cli.json(["-C", "b", "versions", "todo/monday.md", "--all", "--json"])
        #expect(notes.first?["deleted"] as? Bool == true && notes.count == 3, "\(notes)")
        #expect(try cli.tree("a") == cli.tree("b"))
        #expect(try cli.fsck("a").isEmpty && cli.fsck("b").isEmpty)
    }

    /// `save DOC` across a file and a folder: a note saved below a file the work tree replaced by
    /// a folder deletes the file in the same version; a file saved where main holds a folder
    /// deletes the folder's notes; content given for a name the work tree holds as a folder of
    /// notes is refused, nothing changed.
    @Test func savingOneDocumentAcrossAFileAndAFolder() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "a", "--device", "Laptop"])
        try cli.ok(["-C", "a", "save", "todo"], input: "call the bank\n")
        try FileManager.default.removeItem(atPath: "\(cli.folder)/a/todo")
        try cli.write("a/todo/monday.md", "dentist\n")
        try cli.ok(["-C", "a", "save", "todo/monday.md"])
        #expect(try cli.git(["ls-tree", "-r", "--name-only", "main"], in: "a").split(separator: "\n").filter { !$0.hasPrefix(".concord") } == ["todo/monday.md"])
        #expect(try cli.json(["-C", "a", "versions", "todo", "--all", "--json"]).first?["folder"] as? Bool == true)
        let main = try cli.git(["rev-parse", "main"], in: "a")
        let refused = try cli.run(["-C", "a", "save", "todo"], input: "a file again\n")
        #expect(refused.status == 1 && refused.stderr.contains("it is a folder of documents in the work tree"), "\(refused.stderr)")
        #expect(try cli.git(["rev-parse", "main"], in: "a") == main && cli.file("a/todo/monday.md") == "dentist\n")
        try FileManager.default.removeItem(atPath: "\(cli.folder)/a/todo")
        try cli.write("a/todo", "a file again\n")
        try cli.ok(["-C", "a", "save", "todo"])
        #expect(try cli.git(["ls-tree", "-r", "--name-only", "main"], in: "a").split(separator: "\n").filter { !$0.hasPrefix(".concord") } == ["todo"])
        #expect(try cli.json(["-C", "a", "versions", "todo/monday.md", "--all", "--json"]).first?["deleted"] as? Bool == true)
    }

    /// The same name saved as a file on one device and as a folder of notes on the other: the folder keeps
    /// the name on both devices (its notes are in no conflict), the file waits as a conflict
    /// version, and each form of `resolve` settles it; nothing saved is lost.
    @Test(arguments: Way.allCases, [true, false])
    func aFileAndAFolderOfOneNameConflictAndEveryResolveSettlesIt(way: Way, fileFirst: Bool) throws {
        let cli = try CLI()
        defer { cli.remove() }
        try twoDevices(cli)
        let (file, folder) = try clash(cli, fileFirst: fileFirst)
        #expect(!file.isEmpty && !folder.isEmpty)
        for device in ["a", "b"] {
            let conflicts = try cli.json(["-C", device, "conflicts", "--json"])
            #expect(conflicts.count == 1 && conflicts.first?["document"] as? String == "todo", "\(device): \(conflicts)")
            #expect(conflicts.first?["versions"] as? Int == 2 && conflicts.first?["conflictVersions"] as? [String] == [file], "\(device)")
            let versions = try cli.json(["-C", device, "versions", "todo", "--json"])
            #expect(versions.map { $0["id"] as? String } == [folder, file], "\(device): \(versions)")
            #expect(workFiles(cli, device) == ["todo/monday.md", "todo/tuesday.md"], "\(device)")
            #expect(try cli.json(["-C", device, "ls", "--json"]).compactMap { $0["document"] as? String } == ["todo/monday.md", "todo/tuesday.md"])
        }
        #expect(try cli.tree("a") == cli.tree("b"))
        let resolver = fileFirst ? "a" : "b"
        var keptFile: String?
        switch way {
        case .latest:
            try cli.ok(["-C", resolver, "resolve", "todo", "--latest"])
            keptFile = fileFirst ? nil : "call the bank\n"
        case .allLatest:
            let result = try cli.json(["-C", resolver, "resolve", "--all", "--latest", "--json"])
            #expect(result.map { $0["document"] as? String } == ["todo"])
            keptFile = fileFirst ? nil : "call the bank\n"
        case .keepFolder:
            let report = try cli.ok(["-C", resolver, "resolve", "todo", "--keep", String(folder.prefix(7))])
            #expect(report.contains("(the folder of documents stays)"), "\(report)")
        case .keepFile:
            try cli.ok(["-C", resolver, "resolve", "todo", "--keep", file])
            keptFile = "call the bank\n"
        case .file:
            try cli.write("resolution.txt", "call the bank on Monday\n")
            try cli.ok(["-C", resolver, "resolve", "todo", "--file", "\(cli.folder)/resolution.txt"])
            keptFile = "call the bank on Monday\n"
        case .merge:
            let before = try cli.tree(resolver)
            let merged = try cli.run(["-C", resolver, "resolve", "todo", "--merge", "--output", "\(cli.folder)/marked.txt"])
            #expect(merged.status == 3 && merged.stderr.contains("--keep-both"), "\(merged.stderr)")
            #expect(try cli.tree(resolver) == before)
            #expect(try cli.run(["-C", resolver, "resolve", "--all", "--merge"]).status == 3)
            #expect(try cli.json(["-C", resolver, "conflicts", "--json"]).count == 1)
            return
        case .keepBoth:
            let report = try cli.ok(["-C", resolver, "resolve", "todo", "--keep-both"])
            #expect(report.contains("saved beside as 'todo (Laptop)'"), "\(report)")
        }
        try cli.ok(["-C", resolver, "sync"])
        for device in ["a", "b"] { try cli.ok(["-C", device, "sync"]) }
        #expect(try cli.tree("a") == cli.tree("b"))
        for device in ["a", "b"] {
            #expect(try cli.json(["-C", device, "conflicts", "--json"]).isEmpty, "\(device)")
            if let keptFile {
                #expect(workFiles(cli, device) == ["todo"] && cli.file("\(device)/todo") == keptFile, "\(device): \(workFiles(cli, device))")
            } else if way == .keepBoth {
                #expect(workFiles(cli, device) == ["todo (Laptop)", "todo/monday.md", "todo/tuesday.md"], "\(device): \(workFiles(cli, device))")
                #expect(cli.file("\(device)/todo (Laptop)") == "call the bank\n")
            } else {
                #expect(workFiles(cli, device) == ["todo/monday.md", "todo/tuesday.md"], "\(device): \(workFiles(cli, device))")
            }
            // Nothing saved is lost: the file and the notes stay versions, in the history at least.
            let history = try cli.json(["-C", device, "versions", "todo", "--all", "--json"]).compactMap { $0["id"] as? String }
            #expect(history.contains(file) && history.contains(folder), "\(device)")
            #expect(try cli.ok(["-C", device, "show", "todo", "--version", file]) == "call the bank\n")
            let monday = try cli.json(["-C", device, "versions", "todo/monday.md", "--all", "--json"])
            let saved = monday.first { $0["deleted"] as? Bool == false }?["id"] as? String ?? "?"
            #expect(try cli.ok(["-C", device, "show", "todo/monday.md", "--version", saved]) == "dentist\n")
            #expect(try cli.fsck(device).isEmpty)
        }
    }

    /// A file edited on one device while another replaced it by a folder: the folder keeps the
    /// name, the edit waits in contention; keeping it deletes the folder's notes, and a note in
    /// conflict there is resolved with them, all in one version.
    @Test func anEditOfAFileAnotherDeviceReplacedByAFolderWaitsAndCanBeKept() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try twoDevices(cli)
        try cli.ok(["-C", "a", "save", "todo"], input: "v0\n")
        try cli.ok(["-C", "a", "sync"])
        try cli.ok(["-C", "b", "sync"])
        try FileManager.default.removeItem(atPath: "\(cli.folder)/b/todo")
        try cli.write("b/todo/monday.md", "dentist\n")
        try cli.ok(["-C", "b", "save", "--all"])
        try cli.ok(["-C", "a", "save", "todo"], input: "v1\n")
        try cli.ok(["-C", "b", "sync"])
        try cli.ok(["-C", "a", "sync"])
        try cli.ok(["-C", "b", "sync"])
        let versions = try cli.json(["-C", "b", "versions", "todo", "--json"])
        #expect(versions.count == 2 && versions[0]["folder"] as? Bool == true && versions[1]["size"] as? Int == 3, "\(versions)")
        // The note gets into a conflict of its own.
        try cli.ok(["-C", "a", "airplane", "on"])
        try cli.ok(["-C", "a", "save", "todo/monday.md"], input: "dentist at 9\n")
        try cli.ok(["-C", "b", "save", "todo/monday.md"], input: "dentist at 10\n")
        try cli.ok(["-C", "b", "sync"])
        try cli.ok(["-C", "a", "airplane", "off"])
        try cli.ok(["-C", "a", "sync"])
        #expect(try cli.json(["-C", "a", "conflicts", "--json"]).compactMap { $0["document"] as? String } == ["todo", "todo/monday.md"])
        let edit = versions[1]["id"] as? String ?? ""
        let resolved = try cli.json(["-C", "a", "resolve", "--all", "--latest", "--json"])
        #expect(resolved.compactMap { $0["document"] as? String } == ["todo", "todo/monday.md"], "\(resolved)")
        #expect((resolved.first?["kept"] as? [String: Any])?["id"] as? String == edit)
        #expect(resolved.last?["deleted"] as? Bool == true && (resolved.last?["removed"] as? [Any])?.count == 2)
        #expect(try cli.json(["-C", "a", "conflicts", "--json"]).isEmpty)
        #expect(workFiles(cli, "a") == ["todo"] && cli.file("a/todo") == "v1\n")
        try cli.ok(["-C", "a", "sync"])
        try cli.ok(["-C", "b", "sync"])
        #expect(workFiles(cli, "b") == ["todo"] && cli.file("b/todo") == "v1\n")
        let notes = try cli.json(["-C", "b", "versions", "todo/monday.md", "--all", "--json"]).compactMap { $0["id"] as? String }
        let contents = try Set(notes.dropFirst().map { try cli.ok(["-C", "b", "show", "todo/monday.md", "--version", $0]) })
        #expect(contents.isSuperset(of: ["dentist\n", "dentist at 9\n", "dentist at 10\n"]), "\(contents)")
    }

    /// A sync that would put a folder where the work tree holds an unsaved edit of the file, or
    /// a file where the work tree's folder holds an unsaved note, refuses and changes nothing.
    @Test func aSyncNeverReplacesUnsavedWorkBetweenAFileAndAFolder() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try twoDevices(cli)
        try cli.ok(["-C", "a", "save", "todo"], input: "v0\n")
        try cli.ok(["-C", "a", "sync"])
        try cli.ok(["-C", "b", "sync"])
        try FileManager.default.removeItem(atPath: "\(cli.folder)/a/todo")
        try cli.write("a/todo/monday.md", "dentist\n")
        try cli.ok(["-C", "a", "save", "--all"])
        try cli.ok(["-C", "a", "sync"])
        try cli.write("b/todo", "v0, edited but not saved\n")
        let refused = try cli.run(["-C", "b", "sync"])
        #expect(refused.status == 1 && refused.stderr.contains("not saved: todo"), "\(refused.stderr)")
        #expect(cli.file("b/todo") == "v0, edited but not saved\n")
        try cli.ok(["-C", "b", "save", "todo"])
        try cli.ok(["-C", "b", "sync"])
        #expect(workFiles(cli, "b") == ["todo/monday.md"])
        // The other way: a folder holding a note never saved, where a file arrives.
        try cli.ok(["-C", "a", "sync"])
        try cli.ok(["-C", "a", "resolve", "todo", "--keep-both"])
        try cli.ok(["-C", "a", "sync"])
        try cli.ok(["-C", "b", "sync"])
        try FileManager.default.removeItem(atPath: "\(cli.folder)/a/todo")
        try cli.write("a/todo", "back to a file\n")
        try cli.ok(["-C", "a", "save", "--all"])
        try cli.ok(["-C", "a", "sync"])
        try cli.write("b/todo/wednesday.md", "not saved yet\n")
        let second = try cli.run(["-C", "b", "sync"])
        #expect(second.status == 1 && second.stderr.contains("not saved: todo"), "\(second.stderr)")
        #expect(cli.file("b/todo/wednesday.md") == "not saved yet\n" && cli.file("b/todo/monday.md") == "dentist\n")
        // Saved, the note makes the folder a concurrent version: the folder keeps the name.
        try cli.ok(["-C", "b", "save", "--all"])
        try cli.ok(["-C", "b", "sync"])
        #expect(cli.file("b/todo/wednesday.md") == "not saved yet\n")
        #expect(try cli.json(["-C", "b", "conflicts", "--json"]).compactMap { $0["document"] as? String } == ["todo"])
    }

    /// Both agents running: a file on one device, a folder on the other, made while one was in
    /// airplane mode. Both agents report the conflict, neither fails, and edits of other
    /// documents keep travelling both ways until someone keeps both.
    @Test func agentsKeepWorkingThroughAFileAndAFolderOfOneName() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try twoDevices(cli)
        let a = try WatchAgent(cli, device: "a")
        let b = try WatchAgent(cli, device: "b")
        defer { a.stop(); b.stop() }
        a.waitFor("watching")
        b.waitFor("watching")
        try cli.ok(["-C", "a", "airplane", "on"])
        a.waitFor("offline")
        try cli.write("a/todo", "call the bank\n")
        #expect(eventually { a.documents("saved").contains("todo") })
        try cli.write("b/todo/monday.md", "dentist\n")
        #expect(eventually { b.documents("sent").contains("todo/monday.md") })
        try cli.ok(["-C", "a", "airplane", "off"])
        a.waitFor("newConflict", "todo")
        b.waitFor("newConflict", "todo")
        cli.waitForFile("a/todo/monday.md", "dentist\n")
        try cli.write("a/other.txt", "from a\n")
        cli.waitForFile("b/other.txt", "from a\n")
        try cli.write("b/todo/tuesday.md", "groceries\n")
        cli.waitForFile("a/todo/tuesday.md", "groceries\n")
        try cli.ok(["-C", "b", "resolve", "todo", "--keep-both"])
        a.waitFor("resolved", "todo")
        cli.waitForFile("a/todo (Laptop)", "call the bank\n")
        #expect(a.stop() == 0)
        #expect(b.stop() == 0)
        for agent in [a, b] {
            #expect(agent.documents("failed").isEmpty && !agent.events.contains { $0["event"] as? String == "failed" }, "\(agent.device): \(agent.events)")
        }
        #expect(try cli.tree("a") == cli.tree("b"))
    }
}

/// `concord packages`: the package patterns changed after `init`, through the built binary.
@Suite struct PackagesCLITests {
    @Test func packagesSetsListsAndClearsPatternsAndRefusesWhatWouldAlterAConflict() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "a", "--device", "A", "--remote", "cloud.git"])
        try cli.ok(["clone", "cloud.git", "b", "--device", "B"])
        try cli.ok(["-C", "a", "save", "trip/plan.txt"], input: "plan")
        #expect(try cli.ok(["-C", "a", "packages"]).contains("no package patterns"))
        try cli.ok(["-C", "a", "packages", "--set", "trip", "*.bundle"])
        #expect(try cli.ok(["-C", "a", "packages"]) == "trip\n*.bundle\n")
        try cli.ok(["-C", "a", "sync"])
        try cli.ok(["-C", "b", "sync"])
        #expect(try cli.json(["-C", "b", "ls", "--json"]).map { "\($0["document"] ?? "") \($0["package"] ?? "")" } == ["trip 1"])
        try cli.ok(["-C", "a", "packages", "--clear"])
        try cli.diverge("trip/plan.txt", base: "base\n", a: "one\n", b: "two\n")
        try cli.ok(["-C", "a", "sync"])
        let refused = try cli.run(["-C", "a", "packages", "--set", "trip"])
        #expect(refused.status != 0 && refused.stderr.contains("'trip/plan.txt' is in conflict"), "\(refused.stderr)")
        #expect(try cli.ok(["-C", "a", "packages"]).contains("no package patterns"))
    }
}
