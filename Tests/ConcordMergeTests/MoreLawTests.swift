import ConcordMerge
import Foundation
import Testing
import TestSupport

/// Laws over packages, three versions and the JSON text round trip.
struct MoreLawTests {
    private static func package(_ random: inout SeededGenerator, from base: [String: String]? = nil) -> [String: String] {
        guard var files = base else {
            var files: [String: String] = [:]
            for name in ["a.txt", "b.json", "c.log", "d/e.txt"] where random.chance(0.7) {
                files[name] = name.hasSuffix(".json") ? #"{"k": 1, "l": [1]}"# : SeededGenerator.text(random.lines(count: 5))
            }
            return files
        }
        let names = Array(files.keys).sorted()
        if let name = names.isEmpty ? nil : random.pick(names) {
            if random.chance(0.2) {
                files[name] = nil
            } else if name.hasSuffix(".json") {
                files[name] = #"{"k": \#(random.next() % 100), "l": [1]}"#
            } else if let text = files[name] {
                files[name] = SeededGenerator.text(random.edited(text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)))
            }
        }
        if random.chance(0.3) { files["new\(random.next() % 5).txt"] = "new\n" }
        return files
    }

    private static func content(_ files: [String: String]) -> DocumentContent {
        .package(files.mapValues { Data($0.utf8) })
    }

    @Test func packageLaws() {
        let policy = PackagePolicy()
        for seed in 0..<UInt64(200) {
            var random = SeededGenerator(seed: seed)
            let base = MoreLawTests.package(&random)
            let x = MoreLawTests.content(MoreLawTests.package(&random, from: base))
            let y = MoreLawTests.content(MoreLawTests.package(&random, from: base))
            let baseContent = MoreLawTests.content(base)
            func versions(_ first: DocumentContent, _ second: DocumentContent) -> [MergeVersion] {
                [
                    MergeVersion(content: first, id: "1", deviceName: "mac", deviceID: "m", clock: .init(milliseconds: 1), isCurrent: true),
                    MergeVersion(content: second, id: "2", deviceName: "ipad", deviceID: "i", clock: .init(milliseconds: 2)),
                ]
            }
            #expect(policy.merge(base: baseContent, versions: versions(x, baseContent)) == .merged(x), "seed \(seed)")
            #expect(policy.merge(base: baseContent, versions: versions(baseContent, x)) == .merged(x), "seed \(seed)")
            #expect(policy.merge(base: baseContent, versions: versions(x, x)) == .merged(x), "seed \(seed)")
            let outcome = policy.merge(base: baseContent, versions: versions(x, y))
            if case .merged = outcome {
                #expect(policy.merge(base: baseContent, versions: versions(x, y).reversed()) == outcome, "seed \(seed)")
            }
        }
    }

    @Test(arguments: ["text", "union", "json", "json-latest"])
    func threeVersionsInAnyOrder(name: String) throws {
        let policy = try #require(MergePolicies.named(name))
        for seed in 0..<UInt64(200) {
            var random = SeededGenerator(seed: seed)
            let texts: [String]
            let base: String
            if policy is JSONMergePolicy {
                let value = random.value(depth: 3)
                base = String(decoding: value.text(), as: UTF8.self)
                texts = (0..<3).map { _ in String(decoding: random.edited(value).text(), as: UTF8.self) }
            } else {
                let lines = random.lines(count: 10)
                base = SeededGenerator.text(lines)
                texts = (0..<3).map { _ in SeededGenerator.text(random.edited(lines)) }
            }
            let versions = texts.enumerated().map { index, text in
                Fixtures.version(text, device: "device\(index)", clock: Int64(index), current: index == 1)
            }
            let baseContent = DocumentContent.file(Data(base.utf8))
            let outcome = policy.merge(base: baseContent, versions: versions)
            for order in [[2, 0, 1], [1, 2, 0], [2, 1, 0]] {
                #expect(policy.merge(base: baseContent, versions: order.map { versions[$0] }) == outcome, "seed \(seed)")
            }
        }
    }

    @Test func jsonTextRoundTrips() throws {
        var random = SeededGenerator(seed: 7)
        for _ in 0..<300 {
            let value = random.value(depth: 4)
            let style = random.style()
            let text = value.text(style: style)
            #expect(try JSONValue(parsing: text) == value)
            #expect(JSONStyle(detectingIn: Array(text)).indent == (value.isMultiLine ? style.indent : nil))
        }
    }

    @Test func deepNestingNeedsAPersonWithoutCrashing() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let outcome = Fixtures.merge(JSONMergePolicy(), base: "[]", deep, "[1]")
        guard case let .needsPerson(reason, _) = outcome else { Issue.record("merged"); return }
        #expect(reason.contains("nested more than 512 levels deep"))
    }

    @Test func parseErrorsNameTheirPlace() {
        let cases: [(String, String)] = [
            ("", "line 1, column 1: expected a value, found the end of the text"),
            ("{\"a\" 1}", "line 1, column 6: expected ':' after a member name, found '1'"),
            ("[1,]", "line 1, column 4: expected a value, found ']'"),
            ("\"\\x\"", "line 1, column 3: unknown escape \\'x' in a string"),
            ("01", "line 1, column 2: unexpected text after the JSON value"),
            ("{} {}", "line 1, column 4: unexpected text after the JSON value"),
        ]
        for (text, message) in cases {
            #expect(throws: JSONParseError.self) { try JSONValue(parsing: Data(text.utf8)) }
            do {
                _ = try JSONValue(parsing: Data(text.utf8))
            } catch {
                #expect(error.description == message, "\(text)")
            }
        }
    }
}

extension JSONValue {
    /// True when written with an indent, the value spans several lines (a non-empty container).
    fileprivate var isMultiLine: Bool {
        switch self {
        case let .array(elements): !elements.isEmpty
        case let .object(members): !members.isEmpty
        default: false
        }
    }
}
