import ConcordMerge
import Foundation
import Testing
import TestSupport

/// No input crashes a policy: seeded, deterministic inputs made of damaged JSON and text, random
/// bytes, deep nesting and long arrays, through every policy's byte-level entry. Whatever merges
/// as JSON parses.
struct FuzzTests {
    static let seeds: UInt64 = 400

    private static func input(_ random: inout SeededGenerator, from text: String) -> Data {
        var bytes = Array(text.utf8)
        switch Int.random(in: 0..<6, using: &random) {
        case 0:
            return Data((0..<Int.random(in: 0..<64, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
        case 1:
            for _ in 0..<Int.random(in: 1...4, using: &random) where !bytes.isEmpty {
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = random.pick(Array("{}[],:\"\\0\n".utf8) + [0, 0xFF, 0xC3])
            }
        case 2:
            if !bytes.isEmpty { bytes.removeSubrange(Int.random(in: 0..<bytes.count, using: &random)...) }
        case 3:
            let depth = Int.random(in: 1...700, using: &random)
            return Data((String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8)
        case 4:
            let count = Int.random(in: 0...3_000, using: &random)
            return Data(("[" + (0..<count).map { _ in String(Int.random(in: 0..<5, using: &random)) }.joined(separator: ",") + "]").utf8)
        default: break
        }
        return Data(bytes)
    }

    @Test(arguments: MergePolicies.names)
    func noInputCrashesAPolicy(name: String) throws {
        let policy = try #require(MergePolicies.named(name))
        for seed in 0..<FuzzTests.seeds {
            var random = SeededGenerator(seed: seed &* 7919 &+ 17)
            let value = random.value(depth: 3)
            let text = String(decoding: value.text(style: random.style()), as: UTF8.self)
            let edited = String(decoding: random.edited(value).text(), as: UTF8.self)
            let base = random.chance(0.1) ? nil : FuzzTests.input(&random, from: text)
            let current = FuzzTests.input(&random, from: random.chance(0.5) ? text : edited)
            let other = FuzzTests.input(&random, from: edited)
            let result = policy.merge(base: base, current: current, other: other)
            if result.isMerged, policy is JSONMergePolicy {
                #expect(throws: Never.self, "seed \(seed)") { try JSONValue(parsing: result.content) }
            }
            if !result.isMerged {
                let reason = result.reason ?? ""
                #expect(!reason.isEmpty && !reason.contains("\n"), "seed \(seed): \(reason)")
            }
        }
    }
}
