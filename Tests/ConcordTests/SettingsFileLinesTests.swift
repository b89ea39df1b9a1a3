import Foundation
import Testing

@testable import Concord

/// The settings files a container keeps in `.concord/` and its root are read line by line
/// whatever the line ends: a file saved on Windows (CRLF) gives what the same file with LF gives.
/// (Split by characters, where `\r\n` is one, a CRLF file was a single line.) `.concordignore`,
/// `.concord/limits` and `.concord/policies` have their own tests (IgnoreRulesTests,
/// ContainerLimitsTests, PolicyRulesTests).
@Suite struct SettingsFileLinesTests {
    @Test func packagePatternsWithCRLFLineEndsAreThePatternsWithLF() {
        let lf = "*.note\n# bundles\n\ntrip \n*.pages\n"
        #expect(History.parseLines(Data(lf.utf8)) == ["*.note", "trip", "*.pages"])
        #expect(History.parseLines(Data(lf.replacing("\n", with: "\r\n").utf8)) == ["*.note", "trip", "*.pages"])
    }

    /// Two devices change a CRLF settings file at once: the merge of its lines keeps the line
    /// both had and each one's new line, once each (as whole files, both were kept, the common
    /// line twice).
    @Test func concurrentEditsOfACRLFSettingsFileMergeLineByLine() async throws {
        let fixture = try Fixture(devices: 2)
        try await fixture[1].setPolicies("*.log union\r\n")
        try await fixture.syncAll()
        try await fixture[1].setPolicies("*.log union\r\n*.json json\r\n")
        try await fixture[2].setPolicies("*.log union\r\n*.txt text\r\n")
        try await fixture.syncAll()
        for device in [1, 2] {
            #expect(try await fixture[device].policiesText() == "*.log union\n*.json json\n*.txt text\n")
        }
    }

    /// A device rewrites a pattern in another Unicode normalization (`é` as `e` and a combining
    /// accent: a pattern that matches other names) while the other adds a line. The lines compare
    /// by their bytes: the rewritten line is a change, kept. (As `String`s, equal by canonical
    /// equivalence, the rewrite counted as the line both kept, and the old spelling stayed.)
    @Test func aPatternRewrittenInAnotherNormalizationIsAChangeTheMergeKeeps() async throws {
        let (composed, decomposed) = ("caf\u{E9}/* text", "cafe\u{301}/* text")
        let fixture = try Fixture(devices: 2)
        try await fixture[1].setPolicies("\(composed)\n")
        try await fixture.syncAll()
        try await fixture[1].setPolicies("\(decomposed)\n")
        try await fixture[2].setPolicies("\(composed)\n*.txt text\n")
        try await fixture.syncAll()
        for device in [1, 2] {
            let text = try await fixture[device].policiesText()
            #expect(Array(text.utf8) == Array("*.txt text\n\(decomposed)\n".utf8))
        }
    }
}
