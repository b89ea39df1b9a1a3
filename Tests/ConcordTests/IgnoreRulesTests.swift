import Foundation
import Testing

@testable import Concord

/// Ignore rules: gitignore's syntax, checked against git itself; the built-in defaults; which
/// file wins; the limits on a rules file.
@Suite struct IgnoreRulesTests {
    /// One question: does `rules` ignore `path` (a folder when `folder`)?
    struct Case: CustomStringConvertible, Sendable {
        var rules: String
        var path: String
        var folder = false
        var description: String { "\(rules.debugDescription) \(path)\(folder ? "/" : "")" }
    }

    static let cases: [Case] = [
        Case(rules: "*.log", path: "a.log"), Case(rules: "*.log", path: "d/e/a.log"), Case(rules: "*.log", path: "a.logx"),
        Case(rules: "/top.txt", path: "top.txt"), Case(rules: "/top.txt", path: "d/top.txt"),
        Case(rules: "build/", path: "build", folder: true), Case(rules: "build/", path: "build"),
        Case(rules: "build/", path: "d/build/x.txt"), Case(rules: "build/", path: "d/build", folder: true),
        Case(rules: "doc/*.txt", path: "doc/a.txt"), Case(rules: "doc/*.txt", path: "doc/sub/a.txt"),
        Case(rules: "doc/*.txt", path: "x/doc/a.txt"),
        Case(rules: "**/cache", path: "cache"), Case(rules: "**/cache", path: "a/b/cache"), Case(rules: "**/cache", path: "a/cached"),
        Case(rules: "a/**/b", path: "a/b"), Case(rules: "a/**/b", path: "a/x/y/b"), Case(rules: "a/**/b", path: "a/x/c"),
        Case(rules: "logs/**", path: "logs/x"), Case(rules: "logs/**", path: "logs/d/x"), Case(rules: "logs/**", path: "logs", folder: true),
        Case(rules: "*.tmp\n!keep.tmp", path: "keep.tmp"), Case(rules: "*.tmp\n!keep.tmp", path: "a.tmp"),
        Case(rules: "dir/\n!dir/keep", path: "dir/keep"),
        Case(rules: "/*\n!/keep/", path: "keep/x"), Case(rules: "/*\n!/keep/", path: "other"),
        Case(rules: "[abc].md", path: "a.md"), Case(rules: "[abc].md", path: "d.md"), Case(rules: "[!abc].md", path: "d.md"),
        Case(rules: "[!abc].md", path: "a.md"), Case(rules: "[a-c]x", path: "bx"), Case(rules: "[a-c]x", path: "dx"),
        Case(rules: "[]]x", path: "]x"), Case(rules: "[[:digit:]]*", path: "1abc"), Case(rules: "[[:digit:]]*", path: "abc"),
        Case(rules: "\\#*#", path: "#draft#"), Case(rules: "#draft#", path: "#draft#"), Case(rules: "\\!bang", path: "!bang"),
        Case(rules: "?.txt", path: "a.txt"), Case(rules: "?.txt", path: "ab.txt"),
        Case(rules: "trailing  ", path: "trailing"), Case(rules: "space\\ ", path: "space "),
        Case(rules: "# a comment\n\n*.bak", path: "x.bak"), Case(rules: "a*b*c*d", path: "aXbYcZd"), Case(rules: "a*b*c*d", path: "aXbYcZ"),
        Case(rules: "*", path: "anything/at/all"), Case(rules: "d/", path: "d/x.txt"), Case(rules: "d", path: "d/x.txt"),
        Case(rules: "notes/*\n!notes/keep.md", path: "notes/keep.md"), Case(rules: "notes/*\n!notes/keep.md", path: "notes/other.md"),
    ]

    /// Every case is answered as `git check-ignore` answers it, on the same files.
    @Test(arguments: cases)
    func answersAsGitDoes(_ test: Case) throws {
        let folder = NSTemporaryDirectory() + "ignore-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try git(["init", "--quiet"], in: folder)
        try Data((test.rules + "\n").utf8).write(to: URL(fileURLWithPath: "\(folder)/.gitignore"))
        let full = "\(folder)/\(test.path)"
        if test.folder {
            try FileManager.default.createDirectory(atPath: full, withIntermediateDirectories: true)
        } else {
            try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data().write(to: URL(fileURLWithPath: full))
        }
        let gitIgnores = try git(["check-ignore", "--quiet", "--no-index", test.path], in: folder) == 0
        let rules = IgnoreRules(container: test.rules, defaults: [])
        #expect((rules.ignoringRule(test.path, isFolder: test.folder) != nil) == gitIgnores, "git says \(gitIgnores ? "ignored" : "not ignored")")
    }

    @Test func theDefaultsIgnoreEditorsAndSystemsTemporaryFiles() {
        let rules = IgnoreRules()
        let ignored = [
            ".note.md.swp", "notes/.note.md.swo", ".note.md.swn", "4913", "notes/4913", "note.md~", "#note.md#", ".#note.md",
            ".DS_Store", "photos/._beach.jpg", ".Spotlight-V100", ".Trashes", "Thumbs.db", "desktop.ini", "Desktop.ini",
            "~$report.docx", "x.tmp", "notes/draft.tmp", ".~lock.report.odt#", ".idea/workspace.xml", "code/.idea/workspace.xml",
            ".idea/shelf/change.patch", "note.md___jb_tmp___", ".goutputstream-ABC123",
        ]
        for path in ignored {
            #expect(rules.ignoringRule(path, isFolder: false) != nil, "\(path)")
            #expect(rules.ignoringRule(path, isFolder: false)?.source == .builtIn, "\(path)")
        }
        let kept = [
            "note.md", "swap.txt", ".swp.txt", "4914", "a4913", "notes.tmp.md", ".idea/codeStyles/Project.xml", "lock.txt",
            "report.docx", "tmp/x.md", ".concordignore", "#hash.md", "~home.md",
        ]
        for path in kept { #expect(rules.ignoringRule(path, isFolder: false) == nil, "\(path)") }
    }

    @Test func laterFilesWinAndTheRulesFileIsNeverIgnored() throws {
        let rules = IgnoreRules(container: "*.log\n!*.tmp\nphotos/\n", device: "!*.log\nlocal/\n")
        #expect(rules.ignoringRule("keep.tmp", isFolder: false) == nil, "a container rule re-includes a default")
        #expect(rules.ignoringRule("app.log", isFolder: false) == nil, "this device's rule re-includes for itself")
        #expect(rules.ignoringRule(".concordignore", isFolder: false) == nil, "the rules always travel")
        let rule = try #require(rules.ignoringRule("local/x.md", isFolder: false))
        #expect(rule.source == .device(line: 2))
        #expect(rule.description == "rule 'local/' of .git/concord/ignore, line 2 (this device only)")
        let folder = try #require(rules.ignoringRule("photos/beach.jpg", isFolder: false))
        #expect(folder.description == "rule 'photos/' of .concordignore, line 3")
        #expect(IgnoreRules(container: "*").ignoringRule(".concordignore", isFolder: false) == nil)
        #expect(IgnoreRules().ignoringRule("a.tmp", isFolder: false)?.description == "built-in rule '*.tmp'")
    }

    /// A rules file saved with CRLF line ends (a Windows editor) reads as with LF: split by
    /// characters, where `\r\n` is one, it was a single line that matched nothing.
    @Test func aRulesFileWithCRLFLineEndsReadsAsWithLF() throws {
        let rules = IgnoreRules(container: "*.log\r\n!keep.log\r\nphotos/\r\n")
        #expect(rules.ignoringRule("app.log", isFolder: false)?.description == "rule '*.log' of .concordignore, line 1")
        #expect(rules.ignoringRule("keep.log", isFolder: false) == nil)
        #expect(rules.ignoringRule("photos/beach.jpg", isFolder: false)?.description == "rule 'photos/' of .concordignore, line 3")
    }

    /// A rules file is read up to its limits, the rest left out; a match stays linear however
    /// many stars a hostile rule holds.
    @Test func aHugeOrHostileRulesFileIsBounded() {
        let many = (0...IgnoreRules.limits.rules).map { "rule\($0)" }.joined(separator: "\n")
        let rules = IgnoreRules(container: many)
        #expect(rules.isTruncated)
        #expect(rules.rules.count == IgnoreRules.builtIn.count + IgnoreRules.limits.rules)
        #expect(rules.ignoringRule("rule\(IgnoreRules.limits.rules)", isFolder: false) == nil)
        let hostile = IgnoreRules(container: String(repeating: "*a", count: 200) + "b\n" + String(repeating: "**/", count: 200) + "z")
        let name = String(repeating: "a", count: 4000)
        let deep = Array(repeating: "d", count: 500).joined(separator: "/") + "/y"
        let start = ContinuousClock.now
        #expect(hostile.ignoringRule(name, isFolder: false) == nil)
        #expect(hostile.ignoringRule(deep, isFolder: false) == nil)
        #expect(ContinuousClock.now - start < .seconds(5))
    }

    /// Runs git in `folder`; its exit status.
    @discardableResult
    private func git(_ arguments: [String], in folder: String) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/git")
        process.arguments = ["-C", folder] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
