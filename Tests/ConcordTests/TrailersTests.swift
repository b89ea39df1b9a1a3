import Git
import GitFormat
import Testing

@testable import Concord

/// The trailers of a commit message: Concord's own lines of its last paragraph, read the same
/// way on every device, whatever else the message holds.
@Suite struct TrailersTests {
    func pairs(_ message: String) -> [String] {
        Trailers(message: message).pairs.map { "\($0.key)=\($0.value)" }
    }

    @Test func theLastParagraphsConcordLinesAreRead() {
        let message = "Save notes/é.txt\n\nConcord-Document: notes/é.txt\nConcord-Device: iPhone de Zoé\nConcord-Clock: 1800000000000.3\n"
        #expect(pairs(message) == ["Concord-Document=notes/é.txt", "Concord-Device=iPhone de Zoé", "Concord-Clock=1800000000000.3"])
        let written = Trailers([("Concord-Document", "a: b.txt"), ("Concord-Resolves", "0123")]).message(subject: "Resolve")
        #expect(Trailers(message: written) == Trailers([("Concord-Document", "a: b.txt"), ("Concord-Resolves", "0123")]))
    }

    @Test func spacesAroundKeysAndValuesAreDroppedAndOtherLinesLeftOut() {
        let message = "subject\n\nbody: not a trailer\n\n  Concord-Device :  Mac  \nSigned-off-by: someone\nno colon here\n\nConcord-Clock: 5"
        #expect(pairs(message) == ["Concord-Clock=5"])
        #expect(pairs("subject\n\n  Concord-Device :  Mac  \nSigned-off-by: x\n\n") == ["Concord-Device=Mac"])
    }

    @Test func aMessageOfOneParagraphHasNoTrailers() {
        #expect(pairs("Concord-Device: Mac\n").isEmpty)
        #expect(pairs("\n\nConcord-Device: Mac\n\n").isEmpty)
        #expect(pairs("").isEmpty)
    }

    @Test func paragraphsEndAtEachPairOfNewlinesFromTheStart() {
        // "\n\n\n": the first two end a paragraph, the third starts the next one.
        #expect(pairs("subject\n\n\nConcord-Device: Mac") == ["Concord-Device=Mac"])
        #expect(pairs("subject\n\n\n\nConcord-Device: Mac\nConcord-Clock: 7\n") == ["Concord-Device=Mac", "Concord-Clock=7"])
    }

    /// Two documents whose names differ only by Unicode normalization are two groups: what one
    /// resolved, or the current version named for it, is never the other's.
    @Test func documentsAreToldApartByTheirBytes() throws {
        let composed = try DocumentPath("caf\u{E9}.txt"), decomposed = try DocumentPath("cafe\u{301}.txt")
        let a = String(repeating: "a", count: 40), b = String(repeating: "b", count: 40)
        let trailers = Trailers(
            message: "Resolve 2 documents\n\nConcord-Document: \(composed)\nConcord-Resolves: \(a)\nConcord-Document: \(decomposed)\nConcord-Resolves: \(b)\n"
                + "Concord-Current: \(b) \(decomposed)\n")
        #expect(trailers.resolved(composed) == [a] && trailers.resolved(decomposed) == [b])
        #expect(trailers.current(of: decomposed)?.hex == b && trailers.current(of: composed) == nil)
        #expect(trailers.resolvedDocuments.map { Array($0.value.utf8) } == [Array(composed.value.utf8), Array(decomposed.value.utf8)])
    }

    /// A message larger than devices accept from a cloud is never written: the commit is
    /// refused in one line and `main` stays where it was.
    @Test func aCommitOverTheLimitIsNeverWritten() throws {
        let fixture = try Fixture(devices: 1)
        let main = try fixture.git(["rev-parse", "main"], in: fixture[1].root)
        var trailers = Trailers()
        for index in 0..<(ArrivalCheck.Limits.commitSize / 20) { trailers.add(Trailers.document, "documents/\(index).txt") }
        #expect(throws: ConcordError.self) {
            try fixture[1].withCore { core in
                let head = try core.history.head()
                _ = try core.commitMaker.commit(tree: core.history.tree(of: head)!, parents: [head!], subject: "Too much", trailers: trailers)
            }
        }
        #expect(try fixture.git(["rev-parse", "main"], in: fixture[1].root) == main)
    }
}
