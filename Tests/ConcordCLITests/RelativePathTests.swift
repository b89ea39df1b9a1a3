import Foundation
import Testing

/// Document paths typed in a subfolder of a container are read from that folder, as git reads
/// them; `-C` and paths from the root keep working; what commands print names documents from
/// the root.
@Suite struct RelativePathTests {
    @Test func saveShowVersionsLogAndRmReadPathsFromTheCurrentFolder() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "a", "--device", "A"])
        try cli.write("a/notes/today/.keep", "")
        let saved = try cli.ok(["save", "note.md"], input: "Buy milk\n", in: "a/notes")
        #expect(saved.hasPrefix("Saved notes/note.md as version "), "\(saved)")
        try cli.ok(["save", "./note.md"], input: "Buy oat milk\n", in: "a/notes")
        try cli.ok(["save", "../../todo.md"], input: "Call the bank\n", in: "a/notes/today")
        #expect(try cli.ok(["show", "note.md"], in: "a/notes") == "Buy oat milk\n")
        #expect(try cli.ok(["show", "../note.md"], in: "a/notes/today") == "Buy oat milk\n")
        #expect(try cli.ok(["show", "todo.md"], in: "a") == "Call the bank\n")
        #expect(try cli.ok(["show", "notes/note.md"], in: "a") == "Buy oat milk\n")
        #expect(try cli.ok(["-C", "a", "show", "notes/note.md"]) == "Buy oat milk\n")
        #expect(try cli.ok(["-C", "a/notes", "show", "note.md"]) == "Buy oat milk\n")
        // A folder named with `.` and `..` is the folder they lead to, not a path of its own.
        #expect(try cli.ok(["-C", "a/./notes/today/..", "show", "note.md"]) == "Buy oat milk\n")
        #expect(try cli.ok(["-C", "a/notes/../notes//today", "show", "../note.md"]) == "Buy oat milk\n")
        #expect(try cli.ok(["-C", "a/notes/..", "ls"]).contains("notes/note.md"))
        #expect(try cli.ok(["show", "\(cli.folder)/a/notes/note.md"], in: "a/notes/today") == "Buy oat milk\n")
        let versions = try cli.json(["versions", "note.md", "--all", "--json"], in: "a/notes")
        #expect(versions.count == 2)
        let log = try cli.ok(["log", "note.md"], in: "a/notes")
        #expect(log.split(separator: "\n").count == 2)
        // The rule is the folder's, without exception: a path from the root typed in a
        // subfolder names a document below that subfolder.
        let nested = try cli.ok(["save", "notes/note.md"], input: "nested\n", in: "a/notes")
        #expect(nested.hasPrefix("Saved notes/notes/note.md as version "), "\(nested)")
        let removed = try cli.ok(["rm", "note.md"], in: "a/notes")
        #expect(removed.hasPrefix("Deleted notes/note.md as version "), "\(removed)")
        #expect(try cli.json(["-C", "a", "ls", "--json"]).compactMap { $0["document"] as? String } == ["notes/notes/note.md", "todo.md"])
    }

    @Test func resolveReadsItsDocumentFromTheCurrentFolder() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "a", "--device", "A", "--remote", "cloud.git"])
        try cli.ok(["clone", "cloud.git", "b", "--device", "B"])
        try cli.diverge("notes/note.md", base: "base\n", a: "from a\n", b: "from b\n")
        try cli.ok(["-C", "a", "sync"])
        let base = try #require(try cli.json(["versions", "note.md", "--all", "--json"], in: "b/notes").last?["id"] as? String)
        let refused = try cli.run(["resolve", "note.md", "--keep", base], in: "b/notes")
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("(see 'concord versions note.md')"), "\(refused.stderr)")
        let resolved = try cli.ok(["resolve", "note.md", "--latest"], in: "b/notes")
        #expect(resolved.hasPrefix("Resolved notes/note.md: latest"), "\(resolved)")
        #expect(try cli.json(["-C", "b", "conflicts", "--json"]).isEmpty)
    }

    /// A path that leaves the container from where it is typed is refused in one line, exit 2,
    /// and so is an absolute path outside it; the hint of a refusal names the path as typed here.
    @Test func pathsLeavingTheContainerAreRefusedAndHintsNameThePathFromHere() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "a", "--device", "A"])
        try cli.write("a/notes/.keep", "")
        let before = try cli.tree("a")
        for (path, reason) in [
            ("../../outside.md", "'..' leaves the container"), ("..", "it names the container's root folder, not a document"),
            ("/etc/passwd", "an absolute path outside the container"),
        ] {
            let result = try cli.run(["save", path], input: "x\n", in: "a/notes")
            #expect(result.status == 2, "\(path): \(result.stderr)")
            #expect(result.stderr == "concord: invalid document path '\(path)': \(reason)\n", "\(path)")
        }
        // Other refusals name the path from the root, where the name is refused.
        let dotGit = try cli.run(["save", "../.git/config"], input: "x\n", in: "a/notes")
        #expect(dotGit.status == 2)
        #expect(dotGit.stderr == "concord: invalid document path '.git/config': '.git' would be read as '.git', which belongs to git\n")
        #expect(try cli.tree("a") == before)
        let ignored = try cli.run(["save", ".note.md.swp"], input: "x\n", in: "a/notes")
        #expect(ignored.status == 1)
        #expect(ignored.stderr.hasSuffix("('concord save --force .note.md.swp' saves it anyway)\n"), "\(ignored.stderr)")
    }
}
