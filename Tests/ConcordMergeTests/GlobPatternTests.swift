import ConcordMerge
import Foundation
import Testing

/// GlobPattern: `.gitattributes`'s syntax, brackets included, checked against git itself;
/// characters compared as Unicode scalars; a hostile pattern's cost bounded.
@Suite struct GlobPatternTests {
    /// One question: does `pattern` match `path`?
    struct Case: CustomStringConvertible, Sendable {
        var pattern: String
        var path: String
        var description: String { "\(pattern) \(path)" }
    }

    static let cases: [Case] = [
        // the cases of PolicyRulesTests.globs, which GlobPattern answered before it read brackets
        Case(pattern: "*.json", path: "a.json"), Case(pattern: "*.json", path: "dir/sub/a.json"), Case(pattern: "*.json", path: "a.json5"),
        Case(pattern: "docs/*.md", path: "docs/a.md"), Case(pattern: "docs/*.md", path: "docs/x/a.md"), Case(pattern: "docs/*.md", path: "x/docs/a.md"),
        Case(pattern: "/docs/*.md", path: "docs/a.md"), Case(pattern: "docs/**/*.md", path: "docs/a.md"), Case(pattern: "docs/**/*.md", path: "docs/x/y/a.md"),
        Case(pattern: "**/logs/*.log", path: "logs/a.log"), Case(pattern: "**/logs/*.log", path: "x/logs/a.log"), Case(pattern: "logs/**", path: "logs/x/y"),
        Case(pattern: "logs/**", path: "other/x"), Case(pattern: "?.txt", path: "a.txt"), Case(pattern: "?.txt", path: "ab.txt"),
        Case(pattern: "a\\*b", path: "a*b"), Case(pattern: "a\\*b", path: "axb"), Case(pattern: "Notes.note", path: "x/Notes.note"),
        Case(pattern: "*", path: "anything/at/all"), Case(pattern: "a**b", path: "axyb"), Case(pattern: "a/**/b", path: "a/b"),
        // bracket expressions, as gitignore reads them
        Case(pattern: "notes/[0-9]*.txt", path: "notes/1.txt"), Case(pattern: "notes/[0-9]*.txt", path: "notes/12 march.txt"),
        Case(pattern: "notes/[0-9]*.txt", path: "notes/a1.txt"), Case(pattern: "notes/[0-9]*.txt", path: "x/notes/1.txt"),
        Case(pattern: "[!a-c]*.md", path: "d.md"), Case(pattern: "[!a-c]*.md", path: "b.md"), Case(pattern: "[^a-c]*.md", path: "b.md"),
        Case(pattern: "*.[ch]", path: "src/x.c"), Case(pattern: "*.[ch]", path: "x.o"), Case(pattern: "[[:upper:]]*", path: "Readme"),
        Case(pattern: "[[:upper:]]*", path: "readme"), Case(pattern: "[[:digit:][:alpha:]]x", path: "7x"), Case(pattern: "[[:digit:][:alpha:]]x", path: "-x"),
        Case(pattern: "[]]x", path: "]x"), Case(pattern: "[a-]", path: "-"), Case(pattern: "\\[a]", path: "[a]"), Case(pattern: "\\[a]", path: "a"),
        Case(pattern: "[[:a]b:]]", path: "ab:]]"), Case(pattern: "trip[0-9]", path: "trip7"), Case(pattern: "trip[0-9]", path: "tripA"),
    ]

    /// Every case is answered as `git check-attr` answers it for the same `.gitattributes` line.
    @Test(arguments: cases)
    func answersAsGitDoes(_ test: Case) throws {
        let folder = NSTemporaryDirectory() + "glob-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        _ = try git(["init", "--quiet"], in: folder)
        try Data("\(test.pattern) glob\n".utf8).write(to: URL(fileURLWithPath: "\(folder)/.gitattributes"))
        let answer = try git(["check-attr", "glob", "--", test.path], in: folder)
        let gitMatches = answer.hasSuffix(": glob: set\n")
        #expect(GlobPattern(test.pattern).matches(test.path) == gitMatches, "git says \(answer)")
    }

    /// A bracket expression takes one character of its set, or of its complement.
    @Test func aBracketTakesOneCharacterOfItsSet() {
        let digits = GlobPattern("notes/[0-9]*.txt")
        #expect(digits.matches("notes/2024 trip.txt"))
        #expect(!digits.matches("notes/trip 2024.txt"))
        #expect(!GlobPattern("[!.]*").matches(".hidden"))
        #expect(GlobPattern("[!.]*").matches("shown"))
        #expect(GlobPattern("[[:space:]]*").matches("\tindented"))
        #expect(GlobPattern("[\u{E9}]t[\u{E9}]").matches("\u{E9}t\u{E9}"))
        #expect(GlobPattern("notes[1").matches("notes[1"), "a [ never closed is itself")
    }

    /// Characters are Unicode scalars compared by value, as paths are compared by their bytes:
    /// a letter and its combining mark are two, and no normalization makes two spellings one.
    @Test func charactersAreUnicodeScalars() {
        let precomposed = "\u{E9}t\u{E9}.txt", decomposed = "e\u{301}te\u{301}.txt"
        #expect(GlobPattern("?t?.txt").matches(precomposed))
        #expect(!GlobPattern("?t?.txt").matches(decomposed))
        #expect(GlobPattern("??t??.txt").matches(decomposed))
        #expect(GlobPattern(precomposed).matches(precomposed))
        #expect(!GlobPattern(precomposed).matches(decomposed))
        #expect(GlobPattern("*\u{301}te\u{301}.txt").matches(decomposed))
    }

    /// The public surface stays: the text as written, equality by it (and by the anchoring a
    /// caller's syntax decided), a set of patterns.
    @Test func aPatternIsAValueWithItsText() {
        #expect(GlobPattern("notes/[0-9]*.txt").description == "notes/[0-9]*.txt")
        #expect(GlobPattern("*.md") == GlobPattern("*.md"))
        #expect(GlobPattern("*.md") != GlobPattern("*.txt"))
        #expect(Set([GlobPattern("*.md"), GlobPattern("*.md"), GlobPattern("*.txt")]).count == 2)
        let anchored = GlobPattern("docs", isAnchored: true), anywhere = GlobPattern("docs", isAnchored: false)
        #expect(anchored != anywhere)
        #expect(anchored.matches("docs") && !anchored.matches("x/docs"))
        #expect(anywhere.matches("docs") && anywhere.matches("x/docs"))
    }

    /// Many stars, many `**` components or many brackets cost at most the pattern's length
    /// times the path's: these finish (with a backtracking point per star, the first would not).
    @Test func aHostilePatternIsBounded() {
        let stars = GlobPattern(String(repeating: "*a", count: 200) + "b")
        #expect(!stars.matches(String(repeating: "a", count: 4000)))
        #expect(!stars.matches("d/" + String(repeating: "a", count: 4000)))
        let folders = GlobPattern(String(repeating: "**/", count: 200) + "z")
        #expect(!folders.matches(Array(repeating: "d", count: 500).joined(separator: "/") + "/y"))
        let brackets = GlobPattern(String(repeating: "[\\]", count: 30_000) + "x")
        #expect(!brackets.matches(String(repeating: "a", count: 4000)))
        let unclosed = GlobPattern(String(repeating: "[", count: 100_000))
        #expect(unclosed.matches(String(repeating: "[", count: 100_000)))
    }

    /// Runs git in `folder`; what it printed.
    private func git(_ arguments: [String], in folder: String) throws -> String {
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/git")
        process.arguments = ["-C", folder] + arguments
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
