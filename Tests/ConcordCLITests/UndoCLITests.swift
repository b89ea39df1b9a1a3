import Foundation
import Testing

/// `concord resolve DOC --undo` through the binary.
@Suite struct UndoCLITests {
    @Test func resolveUndoPutsTheConflictBackAndRefusesWhatItCannotUndo() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "a", "--device", "A", "--remote", "cloud.git"])
        try cli.ok(["clone", "cloud.git", "b", "--device", "B"])
        try cli.diverge("list.txt", base: "milk\n", a: "milk\neggs\n", b: "bread\nmilk\n")
        try cli.ok(["-C", "b", "resolve", "list.txt", "--latest"])
        #expect(try cli.ok(["-C", "b", "conflicts"]).contains("No document in conflict"))
        let undone = try cli.ok(["-C", "b", "resolve", "list.txt", "--undo"])
        #expect(undone.contains("Undid the last resolution of list.txt"), "\(undone)")
        #expect(try cli.json(["-C", "b", "conflicts", "--json"]).map { $0["document"] as? String } == ["list.txt"])
        let again = try cli.run(["-C", "b", "resolve", "list.txt", "--undo"])
        #expect(again.status == 1 && again.stderr.contains("is in conflict") && again.stderr.split(separator: "\n").count == 1, "\(again.stderr)")
        let usage = try cli.run(["-C", "b", "resolve", "--all", "--undo"])
        #expect(usage.status == 2, "\(usage.stderr)")
        try cli.ok(["-C", "b", "sync"])
        try cli.ok(["-C", "a", "sync"])
        #expect(try cli.json(["-C", "a", "conflicts", "--json"]).map { $0["document"] as? String } == ["list.txt"])
    }
}
