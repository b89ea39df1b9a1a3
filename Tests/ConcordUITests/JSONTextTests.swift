import Foundation
import Testing

@testable import ConcordUI

/// The documents list's JSON, written without `JSONEncoder`: what a JSON parser reads back.
@Suite struct JSONTextTests {
    func parsed(_ bytes: [UInt8]) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
    }

    @Test func everyStringReadsBackAsItWas() throws {
        let controls = String(String.UnicodeScalarView((0..<0x20).compactMap(Unicode.Scalar.init)))
        for value in ["", "plain.txt", #"say "hi" \ there"#, controls, "\u{7F}é\u{301} 🎉 \u{2028}\u{2029} </script>", "a/b\\c\"\n"] {
            var text = JSONText(reservingCapacity: 0)
            text.string(value)
            #expect(try parsed(text.bytes) as? String == value, "\(value.debugDescription)")
        }
    }

    @Test func theListReadsBackWithVersionsOnlyForADocumentInConflict() throws {
        let list = ListJSON(
            device: #"Ann's "phone""#, conflicts: 1,
            inConflict: [DocumentJSON(path: "notes/a\tb.txt", state: "inConflict", package: false, versions: 3)],
            others: [DocumentJSON(path: "trip.note", state: "normal", package: true, versions: nil)])
        let object = try #require(try parsed(list.encoded) as? [String: Any])
        #expect(object["device"] as? String == #"Ann's "phone""# && object["conflicts"] as? Int == 1)
        let documents = try #require(object["documents"] as? [[String: Any]])
        #expect(documents.count == 2)
        #expect(documents[0]["path"] as? String == "notes/a\tb.txt" && documents[0]["state"] as? String == "inConflict")
        #expect(documents[0]["versions"] as? Int == 3 && documents[0]["package"] as? Bool == false)
        #expect(documents[1]["path"] as? String == "trip.note" && documents[1]["package"] as? Bool == true && documents[1]["versions"] == nil)
        #expect(try parsed(ListJSON(device: "d", conflicts: 0, inConflict: [], others: []).encoded) as? [String: Any] != nil, "an empty list is JSON too")
    }
}
