import ConcordMerge
import Foundation
import Testing

struct JSONMergePolicyTests {
    let policy = JSONMergePolicy()

    @Test func differentMembersMergeKeepingLayout() {
        let base = "{\n    \"name\": \"app\",\n    \"version\": \"1.0.0\",\n    \"private\": true\n}\n"
        let mac = "{\n    \"name\": \"app\",\n    \"version\": \"1.1.0\",\n    \"private\": true\n}\n"
        let ipad = "{\n    \"name\": \"app\",\n    \"version\": \"1.0.0\",\n    \"private\": false\n}\n"
        let outcome = Fixtures.merge(policy, base: base, mac, ipad)
        #expect(Fixtures.text(outcome) == "{\n    \"name\": \"app\",\n    \"version\": \"1.1.0\",\n    \"private\": false\n}\n")
    }

    @Test func addedDependenciesGoToTheirSortedPlace() {
        let base = #"{"dependencies": {"b": "1", "d": "1"}}"#
        let mac = #"{"dependencies": {"b": "1", "c": "2", "d": "1"}}"#
        let ipad = #"{"dependencies": {"a": "3", "b": "1", "d": "1", "e": "4"}}"#
        let outcome = Fixtures.merge(policy, base: base, mac, ipad)
        #expect(Fixtures.text(outcome) == #"{"dependencies": {"a": "3", "b": "1", "c": "2", "d": "1", "e": "4"}}"#)
    }

    @Test func unsortedMembersFollowTheMemberBeforeThem() {
        let base = "{\n\t\"z\": 1,\n\t\"a\": 2\n}"
        let mac = "{\n\t\"z\": 1,\n\t\"a\": 2,\n\t\"m\": 3\n}"
        let ipad = "{\n\t\"z\": 1,\n\t\"k\": {\"x\": [1, 2]},\n\t\"a\": 2\n}"
        let outcome = Fixtures.merge(policy, base: base, mac, ipad)
        #expect(Fixtures.text(outcome) == "{\n\t\"z\": 1,\n\t\"k\": {\"x\": [1, 2]},\n\t\"a\": 2,\n\t\"m\": 3\n}")
    }

    /// A member moved on one side is a change, kept beside the other side's edits.
    @Test func aMemberMovedOnOneSideStaysMoved() {
        let base = "{\n  \"private\": true,\n  \"name\": \"app\",\n  \"version\": \"1.0.0\"\n}\n"
        let mac = "{\n  \"private\": true,\n  \"name\": \"app\",\n  \"version\": \"1.1.0\"\n}\n"
        let ipad = "{\n  \"name\": \"app\",\n  \"version\": \"1.0.0\",\n  \"private\": true\n}\n"
        let moved = "{\n  \"name\": \"app\",\n  \"version\": \"1.1.0\",\n  \"private\": true\n}\n"
        #expect(Fixtures.text(Fixtures.merge(policy, base: base, mac, ipad)) == moved)
        #expect(Fixtures.text(Fixtures.merge(policy, base: base, ipad, mac)) == moved)
    }

    /// Lockstep versions: a dependency added at the version every sibling was moved from is
    /// written at the version they moved to; one sibling moved alone is no lockstep.
    @Test func anAddedDependencyFollowsALockstepBump() {
        let base = #"{"deps": {"@x/a": "^1.0.0-alpha.11", "@x/b": "^1.0.0-alpha.11", "left": "^2.0.0"}}"#
        let mac = #"{"deps": {"@x/a": "^1.0.0-alpha.12", "@x/b": "^1.0.0-alpha.12", "left": "^2.0.0"}}"#
        let ipad = #"{"deps": {"@x/a": "^1.0.0-alpha.11", "@x/b": "^1.0.0-alpha.11", "@x/c": "^1.0.0-alpha.11", "left": "^2.0.0"}}"#
        #expect(
            Fixtures.text(Fixtures.merge(policy, base: base, mac, ipad))
                == #"{"deps": {"@x/a": "^1.0.0-alpha.12", "@x/b": "^1.0.0-alpha.12", "@x/c": "^1.0.0-alpha.12", "left": "^2.0.0"}}"#)
        #expect(
            Fixtures.text(Fixtures.merge(policy, base: base, ipad, mac))
                == #"{"deps": {"@x/a": "^1.0.0-alpha.12", "@x/b": "^1.0.0-alpha.12", "@x/c": "^1.0.0-alpha.12", "left": "^2.0.0"}}"#)
        let alone = #"{"deps": {"@x/a": "^1.0.0-alpha.12", "@x/b": "^1.0.0-alpha.11", "left": "^2.0.0"}}"#
        #expect(
            Fixtures.text(Fixtures.merge(policy, base: base, alone, ipad))
                == #"{"deps": {"@x/a": "^1.0.0-alpha.12", "@x/b": "^1.0.0-alpha.11", "@x/c": "^1.0.0-alpha.11", "left": "^2.0.0"}}"#)
    }

    @Test func nestedChangesMerge() {
        let base = #"{"a":{"x":1,"y":2},"b":[1]}"#
        let mac = #"{"a":{"x":10,"y":2},"b":[1]}"#
        let ipad = #"{"a":{"x":1,"y":2,"z":3},"b":[1]}"#
        #expect(Fixtures.text(Fixtures.merge(policy, base: base, mac, ipad)) == #"{"a":{"x":10,"y":2,"z":3},"b":[1]}"#)
    }

    @Test func memberRemovedOnOneSide() {
        let base = #"{"a": 1, "b": 2, "c": 3}"#
        let outcome = Fixtures.merge(policy, base: base, #"{"a": 1, "c": 3}"#, #"{"a": 1, "b": 2, "c": 4}"#)
        #expect(Fixtures.text(outcome) == #"{"a": 1, "c": 4}"#)
    }

    @Test func arraysAppendedOnBothSidesKeepBoth() {
        let base = #"{"log": ["z"]}"#
        let outcome = Fixtures.merge(policy, base: base, #"{"log": ["z", "m"]}"#, #"{"log": ["z", "i", "m"]}"#)
        #expect(Fixtures.text(outcome) == #"{"log": ["z", "m", "i"]}"#)
    }

    @Test func insertionsIntoSortedArraysStaySorted() {
        let base = #"{"words": ["b", "d", "f"]}"#
        let outcome = Fixtures.merge(
            policy, base: base, #"{"words": ["a", "b", "c", "d", "f"]}"#,
            #"{"words": ["b", "cc", "d", "e", "f", "g"]}"#)
        #expect(Fixtures.text(outcome) == #"{"words": ["a", "b", "c", "cc", "d", "e", "f", "g"]}"#)
    }

    @Test func insertionsAtDifferentPlacesMerge() {
        let base = #"[3, 1, 2]"#
        let outcome = Fixtures.merge(policy, base: base, #"[9, 3, 1, 2]"#, #"[3, 1, 8, 2, 7]"#)
        #expect(Fixtures.text(outcome) == #"[9, 3, 1, 8, 2, 7]"#)
    }

    @Test func layoutChangedOnOneSideOnlyIsKept() {
        let base = "{\n    \"a\": 1,\n    \"b\": [1, 2]\n}"
        let mac = "{\n    \"a\": 2,\n    \"b\": [1, 2]\n}"
        let ipad = "{\n  \"a\": 1,\n  \"b\": [\n    1,\n    2\n  ]\n}\n"
        #expect(Fixtures.text(Fixtures.merge(policy, base: base, mac, ipad)) == "{\n  \"a\": 2,\n  \"b\": [\n    1,\n    2\n  ]\n}\n")
        let spaced = "{\n    \"a\": 1,\n    \"b\": [ 1, 2 ]\n}"
        #expect(Fixtures.text(Fixtures.merge(policy, base: base, mac, spaced)) == "{\n    \"a\": 2,\n    \"b\": [ 1, 2 ]\n}")
    }

    @Test func arraysOfIdentifiedObjectsMergeByElement() {
        let base = #"{"items": [{"id": 1, "n": "a"}, {"id": 2, "n": "b"}, {"id": 3, "n": "c"}]}"#
        let mac = #"{"items": [{"id": 1, "n": "A"}, {"id": 3, "n": "c"}]}"#
        let ipad = #"{"items": [{"id": 1, "n": "a"}, {"id": 2, "n": "b"}, {"id": 4, "n": "d"}, {"id": 3, "n": "C"}]}"#
        let outcome = Fixtures.merge(policy, base: base, mac, ipad)
        #expect(Fixtures.text(outcome) == #"{"items": [{"id": 1, "n": "A"}, {"id": 4, "n": "d"}, {"id": 3, "n": "C"}]}"#)
    }

    @Test func configuredIdentifierKey() {
        let policy = JSONMergePolicy(idKeys: ["name"])
        let base = #"[{"name": "x", "v": 1}, {"name": "y", "v": 1}]"#
        let outcome = Fixtures.merge(
            policy, base: base, #"[{"name": "x", "v": 2}, {"name": "y", "v": 1}]"#,
            #"[{"name": "x", "v": 1}, {"name": "y", "v": 3}]"#)
        #expect(Fixtures.text(outcome) == #"[{"name": "x", "v": 2}, {"name": "y", "v": 3}]"#)
    }

    @Test func aRemovalBesideAnAppendMerges() {
        let outcome = Fixtures.merge(policy, base: #"{"a": [1, 2]}"#, #"{"a": [2]}"#, #"{"a": [1, 2, 3]}"#)
        #expect(Fixtures.text(outcome) == #"{"a": [2, 3]}"#)
    }

    @Test func anEditBesideAnAppendMerges() {
        let base = "{\n  \"4.0.x\": [\n    \"fix a\",\n    \"fix b\"\n  ]\n}\n"
        let mac = "{\n  \"4.0.x\": [\n    \"fix a\",\n    \"fix b (#12)\"\n  ]\n}\n"
        let ipad = "{\n  \"4.0.x\": [\n    \"fix a\",\n    \"fix b\",\n    \"fix c\"\n  ]\n}\n"
        let outcome = Fixtures.merge(policy, base: base, mac, ipad)
        #expect(Fixtures.text(outcome) == "{\n  \"4.0.x\": [\n    \"fix a\",\n    \"fix b (#12)\",\n    \"fix c\"\n  ]\n}\n")
    }

    @Test func differentMembersOfOneElementMerge() {
        let base = #"[{"n": "a", "v": 1}, {"n": "b", "v": 1}]"#
        let outcome = Fixtures.merge(
            policy, base: base, #"[{"n": "a", "v": 1}, {"n": "B", "v": 1}]"#,
            #"[{"n": "a", "v": 1}, {"n": "b", "v": 2}, {"n": "c", "v": 3}]"#)
        #expect(Fixtures.text(outcome) == #"[{"n": "a", "v": 1}, {"n": "B", "v": 2}, {"n": "c", "v": 3}]"#)
    }

    @Test func theSameElementChangedTwiceConflicts() {
        let outcome = Fixtures.merge(policy, base: #"{"a": [1, 2, 3]}"#, #"{"a": [1, 5, 3]}"#, #"{"a": [1, 6, 3, 4]}"#)
        guard case let .needsPerson(reason, _) = outcome else { Issue.record("merged"); return }
        #expect(reason == "both sides changed $.a[1] to different values")
        let removedAndEdited = Fixtures.merge(policy, base: #"{"a": [1, 2]}"#, #"{"a": [2]}"#, #"{"a": [7, 2]}"#)
        guard case let .needsPerson(reason, _) = removedAndEdited else { Issue.record("merged"); return }
        #expect(reason == "both sides changed $.a to different values")
    }

    /// Never worse than git: the structural merge refuses an element both sides added at
    /// different places, git's line merge keeps both, parses and loses nothing: git's bytes, noted.
    @Test func gitsCleanLineMergeIsTakenWhenItKeepsEveryChange() {
        let lines = ["\"a\"", "\"b\"", "\"c\"", "\"d\"", "\"e\"", "\"f\""]
        func array(_ elements: [String]) -> String { "[\n  " + elements.joined(separator: ",\n  ") + "\n]\n" }
        let decision = policy.decide(
            base: .file(Data(array(lines).utf8)),
            versions: Fixtures.pair(array(["\"x\""] + lines), array(lines + ["\"x\""])))
        #expect(decision.outcome == .merged(.file(Data(array(["\"x\""] + lines + ["\"x\""]).utf8))))
        #expect(decision.note?.hasPrefix("taken from git's line merge") == true)
        #expect(policy.decide(base: .file(Data(array(lines).utf8)), versions: Fixtures.pair(array(lines + ["\"y\""]), array(["\"x\""] + lines))).note == nil)
    }

    @Test func theSameElementAddedAtTwoPlacesConflicts() {
        let outcome = Fixtures.merge(policy, base: #"["a", "b"]"#, #"["x", "a", "b"]"#, #"["a", "b", "x"]"#)
        #expect(Fixtures.needsPerson(outcome))
    }

    @Test func sameMemberChangedTwiceNeedsAPersonWithMarkers() {
        let base = "{\n  \"v\": 1,\n  \"w\": 1,\n  \"x\": 1\n}\n"
        let outcome = Fixtures.merge(
            policy, base: base, "{\n  \"v\": 2,\n  \"w\": 1,\n  \"x\": 1\n}\n",
            "{\n  \"v\": 3,\n  \"w\": 1,\n  \"x\": 5\n}\n")
        guard case let .needsPerson(reason, markedUp) = outcome else { Issue.record("merged"); return }
        #expect(reason == "both sides changed $.v to different values")
        let marked = markedUp?.fileData.map { String(decoding: $0, as: UTF8.self) }
        #expect(
            marked == """
                {
                <<<<<<< mac
                  "v": 2,
                =======
                  "v": 3,
                >>>>>>> ipad
                  "w": 1,
                  "x": 5
                }

                """)
    }

    @Test func latestSettlesEachConflictingMember() {
        let policy = JSONMergePolicy(settlesConflictsByLatest: true)
        let base = #"{"v": 1, "w": 1}"#
        let outcome = Fixtures.merge(policy, base: base, #"{"v": 2, "w": 7}"#, #"{"v": 3, "w": 1}"#)
        #expect(Fixtures.text(outcome) == #"{"v": 3, "w": 7}"#)
        let older = [
            Fixtures.version(#"{"v": 2, "w": 7}"#, device: "mac", clock: 9, current: true),
            Fixtures.version(#"{"v": 3, "w": 1}"#, device: "ipad", clock: 2),
        ]
        #expect(Fixtures.text(policy.merge(base: .file(Data(base.utf8)), versions: older)) == #"{"v": 2, "w": 7}"#)
    }

    @Test func unchangedPartsAreCopiedAsWritten() {
        let base = "{\n  \"a\": [1,2,  3],\n  \"s\": \"\\u00e9\",\n  \"n\": 1.50\n}"
        let mac = "{\n  \"a\": [1,2,  3],\n  \"s\": \"\\u00e9\",\n  \"n\": 1.50,\n  \"new\": \"\\t\"\n}"
        let ipad = "{\n  \"a\": [1,2,  3],\n  \"s\": \"\\u00e9\",\n  \"n\": 2\n}"
        let outcome = Fixtures.merge(policy, base: base, mac, ipad)
        #expect(Fixtures.text(outcome) == "{\n  \"a\": [1,2,  3],\n  \"s\": \"\\u00e9\",\n  \"n\": 2,\n  \"new\": \"\\t\"\n}")
    }

    @Test func invalidJSONNeedsAPersonNamingTheProblem() {
        let outcome = Fixtures.merge(policy, base: "{}", "{\"a\": 1}", "{\"a\": 1,\n \"b\": }")
        guard case let .needsPerson(reason, _) = outcome else { Issue.record("merged"); return }
        #expect(reason == "ipad's version is not valid JSON: line 2, column 7: expected a value, found '}'")
    }

    @Test func binaryNeedsAPerson() {
        let versions = [
            MergeVersion(content: .file(Data([0xFF, 0xFE, 0])), id: "1", deviceName: "mac", deviceID: "m", clock: .zero),
            Fixtures.version("{}", device: "ipad", clock: 1),
        ]
        guard case let .needsPerson(reason, _) = policy.merge(base: .file(Data("[]".utf8)), versions: versions) else {
            Issue.record("merged"); return
        }
        #expect(reason == "mac's version is binary, not JSON text")
    }

    @Test func duplicateMembersAreInvalid() {
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: Data(#"{"a":1,"a":2}"#.utf8)) }
    }

    /// Found by the `json` fuzz target: the name was put in the message as it was, line breaks and
    /// terminal escapes included, however long.
    @Test func aDuplicateMemberIsNamedInOneLineEscapedAndCut() {
        let name = #""line\nbreak \u001b[2J""#
        #expect(throws: JSONParseError(message: "the member name \(name) appears twice in one object", line: 1, column: 30)) {
            try JSONValue(parsing: Data("{\(name): 1, \(name): 2}".utf8))
        }
        let long = "\"" + String(repeating: "x", count: 50) + "\""
        #expect(throws: JSONParseError(message: "the member name \"\(String(repeating: "x", count: 40))…\" appears twice in one object", line: 3, column: 2)) {
            try JSONValue(parsing: Data("{\n \(long): 1,\n \(long): 2}".utf8))
        }
        let marked = "\"e" + String(repeating: "\u{301}", count: 100) + "\""
        #expect(throws: JSONParseError(message: "the member name \"e\(String(repeating: "\u{301}", count: 39))…\" appears twice in one object", line: 1, column: 210)) {
            try JSONValue(parsing: Data("{\(marked): 1, \(marked): 2}".utf8))
        }
    }

    /// Names and strings that differ by Unicode normalization alone (`é` as one scalar, NFC, or
    /// as `e` and a combining accent, NFD) are different bytes, so different names and values in
    /// JSON (RFC 8259 compares names code unit by code unit). Swift's `String ==` takes them for
    /// equal: the parser refused such a document as naming a member twice, and a merge took a
    /// side's change of normalization for no change and dropped it.
    @Test func namesAndStringsDifferingByNormalizationAloneAreDifferent() throws {
        let (composed, decomposed) = ("caf\u{E9}", "cafe\u{301}")
        let both = try JSONValue(parsing: Data(#"{"\#(composed)": 1, "\#(decomposed)": 2}"#.utf8))
        #expect(both[composed] == .number("1"))
        #expect(both[decomposed] == .number("2"))
        #expect(JSONValue.string(composed) != JSONValue.string(decomposed))
        #expect(try JSONValue(parsing: Data(#"{"\#(composed)": 1}"#.utf8)) != JSONValue(parsing: Data(#"{"\#(decomposed)": 1}"#.utf8)))

        let base = #"{"name": "\#(composed)", "n": 1}"#
        let mac = #"{"name": "\#(decomposed)", "n": 1}"#
        let ipad = #"{"name": "\#(composed)", "n": 2}"#
        for (current, other) in [(mac, ipad), (ipad, mac)] {
            #expect(Fixtures.text(Fixtures.merge(policy, base: base, current, other)) == #"{"name": "\#(decomposed)", "n": 2}"#)
        }
        // Both changed the value, to the same text in different bytes: two changes, as git's line
        // merge sees them, not one agreed.
        #expect(Fixtures.needsPerson(Fixtures.merge(policy, base: #"{"name": "x"}"#, #"{"name": "\#(composed)"}"#, #"{"name": "\#(decomposed)"}"#)))
        // Both names in one object: two members, each merged on its own.
        let twins = #"{"\#(composed)": 1, "\#(decomposed)": 2}"#
        #expect(
            Fixtures.text(Fixtures.merge(policy, base: twins, #"{"\#(composed)": 1, "\#(decomposed)": 3}"#, #"{"\#(composed)": 4, "\#(decomposed)": 2}"#))
                == #"{"\#(composed)": 4, "\#(decomposed)": 3}"#)
        // Each twin's unchanged value is copied with its own formatting, not its twin's.
        let spaced = #"{"\#(composed)": [1, 2], "\#(decomposed)": [1,   2], "n": 1}"#
        #expect(
            Fixtures.text(Fixtures.merge(policy, base: spaced, spaced.replacing(#""n": 1"#, with: #""n": 2"#), spaced.replacing(#""n": 1"#, with: #""n": 1, "m": 3"#)))
                == #"{"\#(composed)": [1, 2], "\#(decomposed)": [1,   2], "n": 2, "m": 3}"#)
        let renamed = #"{"\#(decomposed)": 1, "n": 1}"#
        let keyBase = #"{"\#(composed)": 1, "n": 1}"#
        #expect(Fixtures.text(Fixtures.merge(policy, base: keyBase, renamed, #"{"\#(composed)": 1, "n": 2}"#)) == #"{"\#(decomposed)": 1, "n": 2}"#)
    }

    @Test func deletionNeedsAPersonUnlessAllAgree() {
        #expect(Fixtures.needsPerson(Fixtures.merge(policy, base: "{}", nil, #"{"a":1}"#)))
        #expect(Fixtures.merge(policy, base: "{}", nil, "{}") == .merged(nil))
        #expect(Fixtures.merge(policy, base: "{}", nil, nil) == .merged(nil))
    }

    @Test func threeVersionsFold() {
        let base = #"{"a": 1, "b": 1, "c": 1}"#
        let versions = [
            Fixtures.version(#"{"a": 2, "b": 1, "c": 1}"#, device: "mac", clock: 1, current: true),
            Fixtures.version(#"{"a": 1, "b": 2, "c": 1}"#, device: "ipad", clock: 2),
            Fixtures.version(#"{"a": 1, "b": 1, "c": 2}"#, device: "phone", clock: 3),
        ]
        #expect(Fixtures.text(policy.merge(base: .file(Data(base.utf8)), versions: versions)) == #"{"a": 2, "b": 2, "c": 2}"#)
    }

    @Test(arguments: 0..<4)
    func appendsFromThreeVersionsComeInCanonicalOrder(current: Int) {
        let base = #"{"log": ["z"]}"#
        let versions = (0..<4).map { index in
            Fixtures.version(#"{"log": ["z", "v\#(index)"]}"#, device: "d\(index)", clock: Int64(index), current: index == current)
        }
        let outcome = policy.merge(base: .file(Data(base.utf8)), versions: versions)
        #expect(Fixtures.text(outcome) == #"{"log": ["z", "v0", "v1", "v2", "v3"]}"#)
    }

    @Test func detectsStyles() {
        #expect(JSONStyle(detectingIn: Array("{\n\t\"a\": 1\n}".utf8)).indent == "\t")
        #expect(JSONStyle(detectingIn: Array("[\n    1,\n    2\n]".utf8)).indent == "    ")
        let compact = JSONStyle(detectingIn: Array(#"{"a":1,"b":2}"#.utf8))
        #expect(compact.indent == nil && compact.colon == ":" && compact.comma == ",")
        #expect(JSONStyle(detectingIn: Array("{\r\n  \"a\" : 1\r\n}".utf8)).newline == "\r\n")
    }

    @Test func newValuesAreWrittenInTheCurrentStyle() {
        let base = "{\n  \"a\": 1\n}"
        let mac = "{\n    \"a\": 2\n}"
        let ipad = "{\n  \"a\": 1,\n  \"b\": {\n    \"c\": [\n      true\n    ]\n  }\n}"
        let outcome = Fixtures.merge(policy, base: base, mac, ipad)
        #expect(Fixtures.text(outcome) == "{\n    \"a\": 2,\n    \"b\": {\n        \"c\": [\n            true\n        ]\n    }\n}")
    }
}
