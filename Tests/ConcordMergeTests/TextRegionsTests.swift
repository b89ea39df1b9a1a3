import ConcordMerge
import Foundation
import Testing

@Suite struct TextRegionsTests {
    func regions(_ base: String, _ versions: [String]) throws -> TextRegions {
        try TextRegions(base: Data(base.utf8), versions: versions.map { Data($0.utf8) })
    }

    @Test func changesApartAreRegionsOfTheirOwnAndOverlappingOnesShareOne() throws {
        let base = "a\nb\nc\nd\ne\nf\n"
        let cut = try regions(base, ["A\nb\nc\nd\ne\nf\n", "a\nb\nc\nD\ne\nf\n", "a\nb\nc\nd!\ne\nF\n"])
        let changed = cut.regions.filter(\.isChanged)
        #expect(changed.count == 3)
        #expect(changed[0].base == ["a\n"] && changed[0].versions == [["A\n"], ["a\n"], ["a\n"]] && changed[0].changedBy == [0])
        // Versions 2 and 3 both changed d: one region; 3 also changed f, two lines on: a region of its own.
        #expect(changed[1].base == ["d\n"] && changed[1].versions == [["d\n"], ["D\n"], ["d!\n"]] && changed[1].changedBy == [1, 2])
        #expect(changed[2].base == ["f\n"] && changed[2].changedBy == [2])
        #expect(cut.regions.map(\.base).joined().joined() == base, "the regions cover the ancestor, in order")
    }

    @Test func aChoiceTakesTheVersionsLinesInTheOrderGiven() throws {
        let cut = try regions("top\nmiddle\nend\n", ["top\nfrom one\nend\n", "top\nfrom two\nend\n"])
        #expect(cut.text(choosing: [[1, 0]]) == "top\nfrom two\nfrom one\nend\n")
        #expect(cut.text(choosing: [[0]]) == "top\nfrom one\nend\n")
        #expect(cut.text(choosing: [[]]) == "top\nmiddle\nend\n", "no choice keeps the ancestor's lines")
        #expect(cut.text(choosing: []) == "top\nmiddle\nend\n")
    }

    @Test func insertionsDeletionsAndAMissingLastLineBreak() throws {
        let cut = try regions("one\ntwo\nthree", ["zero\none\ntwo\nthree", "one\nthree", "one\ntwo\nthree\n"])
        // The deletion of two and the line break added after three touch: one region.
        #expect(cut.regions.filter(\.isChanged).map(\.changedBy) == [[0], [1, 2]])
        #expect(cut.text(choosing: [[0], [1]]) == "zero\none\nthree")
        #expect(cut.text(choosing: [[0], [2]]) == "zero\none\ntwo\nthree\n")
        #expect(cut.text(choosing: [[0], []]) == "zero\none\ntwo\nthree")
        let crlf = try regions("a\r\nb\r\n", ["a\r\nB\r\n"])
        #expect(crlf.regions.map(\.base) == [["a\r\n"], ["b\r\n"]])
        #expect(crlf.text(choosing: [[0]]) == "a\r\nB\r\n")
    }

    @Test func binaryIsRefused() {
        #expect(throws: TextDiff.NotText.self) { try TextRegions(base: Data("text\n".utf8), versions: [Data([0, 0xFF])]) }
    }
}
