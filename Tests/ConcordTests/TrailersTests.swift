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
}
