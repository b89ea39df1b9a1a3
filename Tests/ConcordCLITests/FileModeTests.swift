import Foundation
import Testing

/// A file's executable bit is part of its version, as in git: saved by `save` and `save --all`,
/// changed by a save of the bit alone, and written back on the other device.
@Suite struct FileModeTests {
    func mode(_ cli: CLI, _ device: String, _ path: String) throws -> String {
        String(try cli.git(["ls-tree", "main", path], in: device).prefix(6))
    }

    func isExecutable(_ cli: CLI, _ path: String) throws -> Bool {
        let permissions = try FileManager.default.attributesOfItem(atPath: "\(cli.folder)/\(path)")[.posixPermissions] as? Int ?? 0
        return permissions & 0o100 != 0
    }

    @Test func theExecutableBitIsSavedSyncedAndChangedOnItsOwn() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "a", "--device", "A", "--remote", "cloud.git"])
        try cli.ok(["clone", "cloud.git", "b", "--device", "B"])
        for (name, permissions) in [("run.sh", 0o755), ("notes.txt", 0o644)] {
            let path = "\(cli.folder)/a/tools/\(name)"
            try FileManager.default.createDirectory(atPath: "\(cli.folder)/a/tools", withIntermediateDirectories: true)
            try Data("#!/bin/sh\necho \(name)\n".utf8).write(to: URL(fileURLWithPath: path))
            chmod(path, mode_t(permissions))
        }
        try cli.ok(["-C", "a", "save", "--all"])
        #expect(try mode(cli, "a", "tools/run.sh") == "100755")
        #expect(try mode(cli, "a", "tools/notes.txt") == "100644")
        try cli.ok(["-C", "a", "sync"])
        try cli.ok(["-C", "b", "sync"])
        #expect(try isExecutable(cli, "b/tools/run.sh"))
        #expect(try !isExecutable(cli, "b/tools/notes.txt"))

        chmod("\(cli.folder)/a/tools/run.sh", 0o644)
        try cli.ok(["-C", "a", "save", "tools/run.sh"])
        #expect(try mode(cli, "a", "tools/run.sh") == "100644")
        chmod("\(cli.folder)/a/tools/notes.txt", 0o755)
        try cli.ok(["-C", "a", "save", "--all"])
        #expect(try mode(cli, "a", "tools/notes.txt") == "100755")
    }
}
