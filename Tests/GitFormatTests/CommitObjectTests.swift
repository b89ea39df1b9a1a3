import Foundation
import Testing

@testable import GitFormat

/// A commit's headers are read in one pass and checked: what git writes is read whole (a
/// signature continued over lines included), anything else is refused.
@Suite struct CommitObjectTests {
    private let tree = String(repeating: "a", count: 40), parent = String(repeating: "b", count: 40), other = String(repeating: "c", count: 40)

    private func read(_ text: String) throws -> CommitObject {
        try Array(text.utf8).withUnsafeBytes { try CommitObject($0) }
    }

    @Test func aCommitAsGitWritesItIsReadWhole() throws {
        let text = """
            tree \(tree)
            parent \(parent)
            parent \(other)
            author Ada Lovelace <ada@example.com> 1700000000 +0130
            committer Charles <c@example.com> 1700000100 -0800
            gpgsig -----BEGIN PGP SIGNATURE-----
             abc
             -----END PGP SIGNATURE-----

            Subject

            Concord-Device: 42

            """
        let commit = try read(text)
        #expect(commit.tree == OID(hex: tree) && commit.parents == [OID(hex: parent)!, OID(hex: other)!])
        #expect(commit.author == CommitObject.Person(name: "Ada Lovelace", email: "ada@example.com", time: 1_700_000_000, offsetMinutes: 90))
        #expect(commit.committer.offsetMinutes == -480 && commit.committer.time == 1_700_000_100)
        #expect(String(decoding: Array(text.utf8)[commit.messageStart...], as: UTF8.self) == "Subject\n\nConcord-Device: 42\n")
    }

    /// Written as libgit2 writes it, and read back the same; a name that would break a line is refused.
    @Test func aCommitIsWrittenAsGitWritesIt() throws {
        let author = CommitObject.Person(name: " Ada ", email: "ada@example.com", time: 1_700_000_000, offsetMinutes: -330)
        let bytes = try CommitObject.bytes(
            tree: OID(hex: tree)!, parents: [OID(hex: parent)!], author: author, committer: author, encoding: "UTF-8", message: "Subject\n")
        #expect(
            String(decoding: bytes, as: UTF8.self) == """
                tree \(tree)
                parent \(parent)
                author Ada <ada@example.com> 1700000000 -0530
                committer Ada <ada@example.com> 1700000000 -0530
                encoding UTF-8

                Subject

                """)
        let reread = try bytes.withUnsafeBytes { try CommitObject($0) }
        #expect(reread.author.name == "Ada" && reread.author.offsetMinutes == -330 && reread.parents == [OID(hex: parent)!])
        for name in ["A <b>", "line\nbreak"] {
            let bad = CommitObject.Person(name: name, email: "a@b", time: 0, offsetMinutes: 0)
            #expect(throws: FormatError.self) { try CommitObject.bytes(tree: OID(hex: tree)!, parents: [], author: bad, committer: bad, message: "") }
        }
        // "+9999" reads as 99 h 99 min, which ±hhmm cannot hold (found by the commit fuzzer).
        let farZone = try read("tree \(tree)\nauthor A <a@b> 1 +9999\ncommitter A <a@b> 1 +0000\n\nm").author
        #expect(farZone.offsetMinutes == 99 * 60 + 99)
        #expect(throws: FormatError.self) { try CommitObject.bytes(tree: OID(hex: tree)!, parents: [], author: farZone, committer: farZone, message: "") }
    }

    @Test(arguments: [
        "parent P\ntree T\n",  // the tree not first
        "tree T\nauthor A <a@x> 1 +0000\n\nno committer\n",
        "tree T\nauthor A a@x 1 +0000\ncommitter A <a@x> 1 +0000\n\n",  // no address
        "tree T\nauthor A <a@x> soon +0000\ncommitter A <a@x> 1 +0000\n\n",  // no time
        "tree T\nauthor A <a@x> 1 +00\ncommitter A <a@x> 1 +0000\n\n",  // a short zone
        "tree T\nauthor A <a@x> 1 +0000\ncommitter A <a@x> 1 +0000\n",  // ends before its message
        "tree 1234\nauthor A <a@x> 1 +0000\ncommitter A <a@x> 1 +0000\n\n",  // a short id
        "",
    ])
    func anythingElseIsRefused(_ template: String) {
        let text = template.replacingOccurrences(of: "tree T", with: "tree \(tree)").replacingOccurrences(of: "parent P", with: "parent \(parent)")
        #expect(throws: FormatError.self, "\(template.debugDescription)") { try read(text) }
    }
}
