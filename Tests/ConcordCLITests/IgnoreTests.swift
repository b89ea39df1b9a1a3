import Foundation
import Testing

/// Ignore rules from the command line: the built-in defaults, `.concordignore` (which travels),
/// this device's `.git/concord/ignore` (which does not), `save` of an ignored path, a document
/// that becomes ignored, and `ls --ignored`.
@Suite struct IgnoreTests {
    /// Editors' and systems' temporary files that the defaults leave out, beside a note.
    static let temporaryFiles = [
        ".note.md.swp", "notes/.todo.md.swo", "4913", "notes/4913", "note.md~", ".DS_Store", "notes/Thumbs.db", "x.tmp",
        ".~lock.report.odt#", "#note.md#", "._note.md", "~$report.docx",
    ]

    /// Two devices on a local cloud: `a` made the container, `b` cloned it.
    private func twoDevices(_ cli: CLI) throws {
        try cli.ok(["init", "a", "--device", "A", "--remote", "cloud.git"])
        try cli.ok(["clone", "cloud.git", "b", "--device", "B"])
    }

    private func documents(_ cli: CLI, _ device: String) throws -> [String] {
        try cli.json(["-C", device, "ls", "--json"]).compactMap { $0["document"] as? String }
    }

    @Test func theDefaultsAreNeverSavedAndGitignoreHasNoEffect() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "a", "--device", "A"])
        try cli.write("a/note.md", "Buy milk\n")
        try cli.write("a/.gitignore", "*.md\n")
        for file in Self.temporaryFiles { try cli.write("a/\(file)", "scratch\n") }
        let saved = try cli.run(["-C", "a", "save", "--all"])
        #expect(saved.status == 0 && saved.stderr.isEmpty, "\(saved.stderr)")
        #expect(saved.stdout.contains("2 added"), "\(saved.stdout)")
        #expect(try documents(cli, "a") == [".gitignore", "note.md"])
        for file in Self.temporaryFiles { try cli.write("a/\(file)", "scratch, edited\n") }
        #expect(try cli.ok(["-C", "a", "save", "--all"]) == "Nothing to save\n")
        let help = try cli.ok(["ls", "--help"])
        #expect(help.contains(".gitignore has no effect"), "\(help)")
    }

    /// A rule and a `!` re-include of a default, written on one device, reach the other with the
    /// container: both leave out and save the same files, and agree on why.
    @Test func aRuleAndAReincludeTravelSoBothDevicesAgree() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try twoDevices(cli)
        try cli.write("a/.concordignore", "# build output\n*.log\nbuild/\n!keep.tmp\n")
        for file in ["app.log", "build/out.bin", "keep.tmp", "other.tmp", "notes.md"] { try cli.write("a/\(file)", "from a\n") }
        try cli.ok(["-C", "a", "save", "--all"])
        #expect(try documents(cli, "a") == [".concordignore", "keep.tmp", "notes.md"])
        try cli.ok(["-C", "a", "sync"])
        try cli.ok(["-C", "b", "sync"])
        #expect(cli.file("b/.concordignore") == "# build output\n*.log\nbuild/\n!keep.tmp\n")
        for file in ["debug.log", "build/cache/x.bin", "other.tmp"] { try cli.write("b/\(file)", "from b\n") }
        try cli.write("b/keep.tmp", "kept, edited on b\n")
        let saved = try cli.ok(["-C", "b", "save", "--all"])
        #expect(saved.contains("0 added, 1 changed"), "\(saved)")
        try cli.ok(["-C", "b", "sync"])
        try cli.ok(["-C", "a", "sync"])
        #expect(try cli.tree("a") == cli.tree("b"))
        #expect(cli.file("a/keep.tmp") == "kept, edited on b\n")
        #expect(try documents(cli, "a") == documents(cli, "b"))
        let reasons = { (device: String) in
            try cli.json(["-C", device, "ls", "--ignored", "--json"]).map { "\($0["path"] ?? "") \($0["source"] ?? "") \($0["line"] ?? "")" }
        }
        #expect(try reasons("a") == ["app.log .concordignore 2", "build .concordignore 3", "other.tmp built-in "])
        #expect(try reasons("b") == ["build .concordignore 3", "debug.log .concordignore 2", "other.tmp built-in "])
    }

    /// `.git/concord/ignore` is this device's: its rules leave files out here only, and never
    /// reach the cloud.
    @Test func aRuleOfThisDeviceDoesNotTravel() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try twoDevices(cli)
        try cli.write("a/.git/concord/ignore", "private/\n")
        try cli.write("a/private/diary.md", "a's secret\n")
        try cli.write("a/shared.md", "for everyone\n")
        try cli.ok(["-C", "a", "save", "--all"])
        #expect(try documents(cli, "a") == ["shared.md"])
        try cli.ok(["-C", "a", "sync"])
        try cli.ok(["-C", "b", "sync"])
        try cli.write("b/private/diary.md", "b keeps no secrets\n")
        try cli.ok(["-C", "b", "save", "--all"])
        #expect(try documents(cli, "b") == ["private/diary.md", "shared.md"])
        #expect(try cli.json(["-C", "b", "ls", "--ignored", "--json"]).isEmpty)
        try cli.ok(["-C", "b", "sync"])
        try cli.ok(["-C", "a", "sync"])
        // a's own file stays as it is, and its content never went up.
        #expect(cli.file("a/private/diary.md") == "a's secret\n")
        #expect(try cli.ok(["-C", "a", "show", "private/diary.md"]) == "b keeps no secrets\n")
        #expect(try cli.git(["log", "--all", "-p"], in: "cloud.git").contains("a's secret") == false)
        let listed = try cli.ok(["-C", "a", "ls", "--ignored"])
        #expect(
            listed == "private/  rule 'private/' of .git/concord/ignore, line 1 (this device only); a document: it keeps its versions, its edits here are not saved\n"
        )
    }

    /// A document that an ignore rule starts to match keeps every version; its edits and its
    /// removal are not saved, and no device records it deleted.
    @Test func aDocumentThatBecomesIgnoredKeepsItsHistory() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try twoDevices(cli)
        try cli.ok(["-C", "a", "save", "app.log"], input: "first\n")
        try cli.ok(["-C", "a", "save", "app.log"], input: "second\n")
        try cli.ok(["-C", "a", "sync"])
        try cli.ok(["-C", "b", "sync"])
        try cli.write("a/.concordignore", "*.log\n")
        try cli.write("a/app.log", "third, never saved\n")
        let saved = try cli.ok(["-C", "a", "save", "--all"])
        #expect(saved.contains("1 added, 0 changed, 0 removed"), "\(saved)")
        try FileManager.default.removeItem(atPath: "\(cli.folder)/a/app.log")
        #expect(try cli.ok(["-C", "a", "save", "--all"]) == "Nothing to save\n")
        try cli.ok(["-C", "a", "sync"])
        try cli.ok(["-C", "b", "sync"])
        for device in ["a", "b"] {
            let versions = try cli.json(["-C", device, "versions", "app.log", "--all", "--json"])
            #expect(versions.count == 2, "\(device)")
            #expect(versions.allSatisfy { $0["deleted"] as? Bool == false }, "\(device)")
            #expect(try documents(cli, device).contains("app.log"), "\(device)")
        }
        #expect(cli.file("b/app.log") == "second\n")
        // b's edit is not saved either; a save of it says why, in one line, and changes nothing.
        try cli.write("b/app.log", "edited on b\n")
        #expect(try cli.ok(["-C", "b", "save", "--all"]) == "Nothing to save\n")
        let before = try cli.tree("b")
        let refused = try cli.run(["-C", "b", "save", "app.log"])
        #expect(refused.status == 1)
        #expect(
            refused.stderr
                == "concord: 'app.log' is ignored by rule '*.log' of .concordignore, line 1: not saved ('concord save --force app.log' saves it anyway)\n")
        #expect(try cli.tree("b") == before)
        #expect(try cli.ok(["-C", "b", "ls", "--ignored"]).contains("app.log  rule '*.log' of .concordignore, line 1; a document: it keeps its versions"))
        // A sync that brings a new version leaves b's unsaved edit alone instead of refusing.
        try cli.ok(["-C", "a", "save", "--force", "app.log"], input: "forced from a\n")
        try cli.ok(["-C", "a", "sync"])
        try cli.ok(["-C", "b", "sync"])
        #expect(cli.file("b/app.log") == "edited on b\n")
        #expect(try cli.ok(["-C", "b", "show", "app.log"]) == "forced from a\n")
        // Deleting it is a person's decision, and its edits, never saved, stay in the file.
        try cli.ok(["-C", "b", "rm", "app.log"])
        #expect(cli.file("b/app.log") == "edited on b\n")
        #expect(try documents(cli, "b") == [".concordignore"])
        #expect(try cli.fsck("b").isEmpty)
    }

    /// `save DOC` of an ignored path is refused before anything is written, unless `--force`.
    @Test func savingAnIgnoredPathSaysSoUnlessForced() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "a", "--device", "A"])
        let before = try cli.tree("a")
        let refused = try cli.run(["-C", "a", "save", "draft.tmp"], input: "scratch\n")
        #expect(refused.status == 1 && refused.stdout.isEmpty)
        #expect(refused.stderr == "concord: 'draft.tmp' is ignored by built-in rule '*.tmp': not saved ('concord save --force draft.tmp' saves it anyway)\n")
        #expect(try cli.tree("a") == before)
        #expect(cli.file("a/draft.tmp") == nil)
        let forced = try cli.ok(["-C", "a", "save", "draft.tmp", "--force"], input: "kept on purpose\n")
        #expect(forced.hasPrefix("Saved draft.tmp as version"))
        #expect(try cli.ok(["-C", "a", "show", "draft.tmp"]) == "kept on purpose\n")
        let both = try cli.run(["-C", "a", "save", "--all", "--force"])
        #expect(both.status == 2)
    }

    /// `ls --ignored` names each entry left out and why: the rule and its file, the size limit,
    /// links and empty folders (not synced); `--json` says the same in fields.
    @Test func lsIgnoredSaysWhy() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "a", "--device", "A"])
        try cli.write("a/.concordignore", "*.log\n")
        try cli.write("a/.git/concord/ignore", "mine/\n")
        try cli.write("a/app.log", "log\n")
        try cli.write("a/mine/x.md", "mine\n")
        try cli.write("a/.note.md.swp", "swap\n")
        try cli.write("a/big.bin", String(repeating: "x", count: 4096))
        try cli.write("a/note.md", "note\n")
        try FileManager.default.createDirectory(atPath: "\(cli.folder)/a/empty/inner", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: "\(cli.folder)/a/link", withDestinationPath: "/etc/passwd")
        let environment = ["CONCORD_MAX_OBJECT_SIZE": "2k"]
        let text = try cli.run(["-C", "a", "ls", "--ignored"], environment: environment)
        #expect(text.status == 0, "\(text.stderr)")
        #expect(
            text.stdout == """
                .note.md.swp  built-in rule '.*.sw[a-p]'
                app.log       rule '*.log' of .concordignore, line 1
                big.bin       4 KB, over the limit of 2 KB for one file ('concord limits --file-size SIZE' raises the container's; CONCORD_MAX_OBJECT_SIZE or concord.maxObjectSize set a device's own)
                empty/inner/  an empty folder: a folder is synced only with the files in it
                link          a symbolic link: links are never followed nor synced
                mine/         rule 'mine/' of .git/concord/ignore, line 1 (this device only)

                """)
        let json = try cli.run(["-C", "a", "ls", "--ignored", "--json"], environment: environment)
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(entries.map { $0["reason"] as? String } == ["rule", "rule", "size", "emptyFolder", "symlink", "rule"])
        #expect(entries[0]["source"] as? String == "built-in" && entries[0]["rule"] as? String == ".*.sw[a-p]")
        #expect(entries[1]["source"] as? String == ".concordignore" && entries[1]["line"] as? Int == 1)
        #expect(entries[2]["size"] as? Int == 4096 && entries[2]["limit"] as? Int == 2048)
        #expect(entries[3]["folder"] as? Bool == true && entries[5]["folder"] as? Bool == true)
        #expect(entries[5]["source"] as? String == ".git/concord/ignore")
        #expect(entries.allSatisfy { $0["document"] as? Bool == false })
        let filtered = try cli.json(["-C", "a", "ls", "--ignored", "--json", "*.log"])
        #expect(filtered.map { $0["path"] as? String } == ["app.log"])
    }
}
