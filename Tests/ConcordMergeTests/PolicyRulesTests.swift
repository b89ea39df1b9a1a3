import ConcordMerge
import Foundation
import Testing

struct PolicyRulesTests {
    @Test(arguments: [
        ("*.json", "a.json", true), ("*.json", "dir/sub/a.json", true), ("*.json", "a.json5", false),
        ("docs/*.md", "docs/a.md", true), ("docs/*.md", "docs/x/a.md", false), ("docs/*.md", "x/docs/a.md", false),
        ("/docs/*.md", "docs/a.md", true), ("docs/**/*.md", "docs/a.md", true), ("docs/**/*.md", "docs/x/y/a.md", true),
        ("**/logs/*.log", "logs/a.log", true), ("**/logs/*.log", "x/logs/a.log", true), ("logs/**", "logs/x/y", true),
        ("logs/**", "other/x", false), ("?.txt", "a.txt", true), ("?.txt", "ab.txt", false), ("a\\*b", "a*b", true),
        ("a\\*b", "axb", false), ("Notes.note", "x/Notes.note", true), ("*", "anything/at/all", true),
    ])
    func globs(pattern: String, path: String, matches: Bool) {
        #expect(GlobPattern(pattern).matches(path) == matches)
    }

    @Test func firstMatchWins() throws {
        let rules = try PolicyRules(
            text: """
                # comment

                *.log      union
                special.json\tjson-latest
                *.json     text
                data/**    latest
                """)
        #expect(rules.policy(for: "a/b.log", versions: []).name == "union")
        #expect(rules.policy(for: "special.json", versions: []).name == "json-latest")
        #expect(rules.policy(for: "x/other.json", versions: []).name == "text")
        #expect(rules.policy(for: "data/x.txt", versions: []).name == "latest")
        #expect(rules.rules.map(\.line) == [3, 4, 5, 6])
    }

    @Test func defaults() {
        let rules = PolicyRules()
        let text = [Fixtures.version("hello\n", device: "mac", clock: 1)]
        let binary = [MergeVersion(content: .file(Data([0, 255])), id: "1", deviceName: "d", deviceID: "d", clock: .zero)]
        let package = [MergeVersion(content: .package([:]), id: "1", deviceName: "d", deviceID: "d", clock: .zero)]
        #expect(rules.policy(for: "a.json", versions: text).name == "json")
        #expect(rules.policy(for: "a.txt", versions: text).name == "text")
        #expect(rules.policy(for: "a.png", versions: binary).name == "latest")
        #expect(rules.policy(for: "a.note", versions: package).name == "package")
        #expect(rules.policy(for: "a.txt", versions: [Fixtures.version(nil, device: "m", clock: 1)]).name == "text")
    }

    /// A rule's pattern may hold a bracket expression, as `.gitattributes` may: its policy is
    /// picked for the documents whose names have a character of the set there, and only those.
    @Test func aBracketExpressionPicksItsDocumentsOnly() throws {
        let rules = try PolicyRules(text: "notes/[0-9]*.txt union\n*.[ch] latest\n")
        #expect(rules.policy(for: "notes/2024-05 trip.txt", versions: []).name == "union")
        #expect(rules.policy(for: "notes/7.txt", versions: []).name == "union")
        #expect(rules.rule(for: "notes/trip.txt") == nil)
        #expect(rules.rule(for: "notes/x/1.txt") == nil)
        #expect(rules.rule(for: "other/1.txt") == nil)
        #expect(rules.policy(for: "src/main.c", versions: []).name == "latest")
        #expect(rules.rule(for: "src/main.o") == nil)
        #expect(rules.rules.map(\.text) == ["notes/[0-9]*.txt union", "*.[ch] latest"])
    }

    @Test func autoMeansDefaults() throws {
        let rules = try PolicyRules(text: "*.json auto\n* latest\n")
        #expect(rules.policy(for: "a.json", versions: []).name == "json")
        #expect(rules.policy(for: "a.txt", versions: []).name == "latest")
    }

    /// `auto` as the last field after the policy name marks a rule that resolves on its own;
    /// in the second field it is the policy name meaning the defaults, as before.
    @Test func autoLastResolvesOnItsOwnAutoSecondMeansTheDefaults() throws {
        let rules = try PolicyRules(
            text: """
                .obsidian/workspace.json latest auto
                people.json json id=email auto
                notes/* auto
                drafts/* auto auto
                *.log union
                """)
        #expect(rules.rules.map(\.resolvesAutomatically) == [true, true, false, true, false])
        #expect(rules.rules.map(\.policyName) == ["latest", "json", "auto", "auto", "union"])
        #expect(rules.rules[1].idKeys == ["email"])
        #expect(
            rules.rules.map(\.text) == [
                ".obsidian/workspace.json latest auto", "people.json json id=email auto", "notes/* auto", "drafts/* auto auto", "*.log union",
            ])
        #expect(rules.policy(for: "drafts/a.json", versions: []).name == "json")
        #expect(rules.rule(for: ".obsidian/workspace.json")?.resolvesAutomatically == true)
        #expect(rules.rule(for: "x.log")?.resolvesAutomatically == false)
    }

    @Test func autoGoesOnceAndLast() {
        for line in ["a latest auto auto", "people.json json auto id=email", "a text auto extra", "a latest automatic"] {
            #expect(throws: PolicyRules.SyntaxError.self, "\(line)") { try PolicyRules(text: line + "\n") }
        }
    }

    /// A name this program does not know is an app's own (issue 40): the rules still parse, the
    /// other rules apply, and the documents it matches are left for a person, never merged by a
    /// policy the rule did not name.
    @Test func aPolicyThisProgramDoesNotKnowLeavesItsDocumentsForAPerson() throws {
        let rules = try PolicyRules(text: "*.txt text\n*.json jsonn\n")
        #expect(rules.rule(for: "a.json")?.isKnown == false && rules.rule(for: "a.txt")?.isKnown == true)
        #expect(rules.policy(for: "a.txt", versions: []).name == "text")
        let versions = ["{}\n", "{\"a\": 1}\n"].enumerated().map { index, text in
            MergeVersion(content: .file(Data(text.utf8)), id: "v\(index)", deviceName: "d\(index)", deviceID: "\(index)", clock: HybridLogicalClock(milliseconds: Int64(index)))
        }
        let policy = rules.policy(for: "a.json", versions: versions)
        #expect(policy.name == "jsonn")
        guard case let .needsPerson(reason, _) = policy.merge(base: nil, versions: versions) else {
            Issue.record("an unknown policy merged")
            return
        }
        #expect(reason.contains("\"jsonn\"") && reason.contains("MergePolicies.register"))
    }

    @Test func malformedLineIsRefused() {
        #expect(throws: PolicyRules.SyntaxError.self) { try PolicyRules(text: "*.txt\n") }
        #expect(throws: PolicyRules.SyntaxError.self) { try PolicyRules(text: "*.txt text extra\n") }
        #expect(throws: PolicyRules.SyntaxError.self) { try PolicyRules(text: "*.json json id=\n") }
        #expect(throws: PolicyRules.SyntaxError.self) { try PolicyRules(text: "*.json json key=x\n") }
    }

    /// A file saved with CRLF line ends (a Windows editor) gives the rules the same file with LF
    /// gives: split by characters, where `\r\n` is one, it was a single line of four fields.
    @Test func aFileWithCRLFLineEndsGivesTheSameRules() throws {
        let lf = "*.log union\n# a comment\n\npeople.json json id=email auto\n"
        let crlf = try PolicyRules(text: lf.replacing("\n", with: "\r\n"))
        #expect(crlf.rules == (try PolicyRules(text: lf)).rules)
        #expect(crlf.rules.map(\.policyName) == ["union", "json"] && crlf.rules.map(\.line) == [1, 4])
    }

    /// The file comes from the cloud: its text is quoted in an error as JSON writes a string
    /// (one line, no terminal escape sent), and cut when long.
    @Test func aRefusedLineIsQuotedEscapedAndCut() {
        do {
            _ = try PolicyRules(text: "# rules\n*.log union\u{1B}[31m x\r\n")
            Issue.record("a rule with an extra field was taken")
        } catch {
            #expect(
                error.description
                    == #".concord/policies line 2: expected PATTERN POLICY-NAME [auto], found "x" after the policy name: "*.log union\u001b[31m x""#)
        }
        let pattern = String(repeating: "a", count: 300)
        do {
            _ = try PolicyRules(text: pattern + "\n")
            Issue.record("a pattern without a policy was taken")
        } catch {
            #expect(error.text == pattern)
            #expect(error.description == ".concord/policies line 1: a pattern needs a policy name after it: \"\(String(repeating: "a", count: 120))…\"")
        }
        let rules = try? PolicyRules(text: "*.txt no\u{1B}]0;title\u{7}\n")
        guard case let .needsPerson(reason, _)? = rules?.policy(for: "a.txt", versions: []).merge(base: nil, versions: []) else {
            Issue.record("an unknown policy merged")
            return
        }
        #expect(reason.hasPrefix(#"its rule names the policy "no\u001b]0;title\u0007", which"#))
    }

    @Test func jsonRulesNameIdentifierKeys() throws {
        let rules = try PolicyRules(text: "people.json json id=email,login\n")
        let policy = try #require(rules.policy(for: "people.json", versions: []) as? JSONMergePolicy)
        #expect(policy.idKeys == ["email", "login"])
        #expect(policy.name == "json")
        let base = #"[{"email": "a@x", "n": 1}, {"email": "b@x", "n": 1}]"#
        let outcome = Fixtures.merge(
            policy, base: base, #"[{"email": "a@x", "n": 2}, {"email": "b@x", "n": 1}]"#,
            #"[{"email": "a@x", "n": 1}, {"email": "b@x", "n": 3}]"#)
        #expect(Fixtures.text(outcome) == #"[{"email": "a@x", "n": 2}, {"email": "b@x", "n": 3}]"#)
    }

    @Test func everyPolicyIsNamedOnce() {
        #expect(Set(MergePolicies.names).count == MergePolicies.names.count)
        for name in [
            "latest", "current", "text", "text-current", "text-other", "text-union", "union", "json",
            "json-latest", "package", "auto",
        ] {
            #expect(MergePolicies.named(name)?.name == name)
        }
    }

    @Test func automaticPolicyLooksAtContent() {
        let json = Fixtures.pair(#"{"a": 2, "b": 1}"#, #"{"a": 1, "b": 2}"#)
        #expect(
            Fixtures.text(AutomaticPolicy().merge(base: .file(Data(#"{"a": 1, "b": 1}"#.utf8)), versions: json))
                == #"{"a": 2, "b": 2}"#)
        #expect(AutomaticPolicy().chosen(base: nil, versions: Fixtures.pair("a", "b")).name == "text")
    }
}
