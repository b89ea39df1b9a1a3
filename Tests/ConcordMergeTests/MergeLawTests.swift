import ConcordMerge
import Foundation
import Testing
import TestSupport

/// The laws every three-way policy keeps, checked over generated inputs from fixed seeds.
struct MergeLawTests {
    static let cases = 300

    /// The policies that are three-way merges (latest-wins and keep-current ignore the ancestor,
    /// so only the second law applies to them).
    static let threeWay: [any MergePolicy] = [
        TextMergePolicy(), TextMergePolicy(favor: .current), TextMergePolicy(favor: .union), UnionPolicy(),
        JSONMergePolicy(), JSONMergePolicy(settlesConflictsByLatest: true), AutomaticPolicy(),
    ]

    private struct Case {
        var base: String
        var x: String
        var y: String
        var isJSON: Bool
    }

    private static func generate(seed: UInt64) -> Case {
        var random = SeededGenerator(seed: seed)
        if random.chance(0.5) {
            let base = random.lines(count: Int.random(in: 0...12, using: &random))
            return Case(
                base: SeededGenerator.text(base), x: SeededGenerator.text(random.edited(base)),
                y: SeededGenerator.text(random.edited(base)), isJSON: false)
        }
        let style = random.style()
        let base = random.value(depth: 3)
        let x = random.edited(base)
        let y = random.edited(random.chance(0.3) ? random.edited(base) : base)
        func text(_ value: JSONValue) -> String { String(decoding: value.text(style: style), as: UTF8.self) + "\n" }
        return Case(base: text(base), x: text(x), y: text(y), isJSON: true)
    }

    private func applicable(_ policy: any MergePolicy, _ item: Case) -> Bool {
        !(policy is JSONMergePolicy) || item.isJSON
    }

    @Test(arguments: threeWay.map(\.name))
    func unchangedOtherSideGivesTheChange(name: String) throws {
        let policy = try #require(MergePolicies.named(name))
        for seed in 0..<UInt64(MergeLawTests.cases) {
            let item = MergeLawTests.generate(seed: seed)
            guard applicable(policy, item) else { continue }
            for (current, other) in [(item.x, item.base), (item.base, item.x)] {
                let outcome = Fixtures.merge(policy, base: item.base, current, other)
                #expect(Fixtures.text(outcome) == item.x, "seed \(seed)")
            }
        }
    }

    @Test(arguments: MergePolicies.all.map(\.name))
    func sameChangeOnBothSidesGivesTheChange(name: String) throws {
        let policy = try #require(MergePolicies.named(name))
        guard !(policy is PackagePolicy) else { return }
        for seed in 0..<UInt64(MergeLawTests.cases) {
            let item = MergeLawTests.generate(seed: seed)
            guard applicable(policy, item) else { continue }
            #expect(Fixtures.text(Fixtures.merge(policy, base: item.base, item.x, item.x)) == item.x, "seed \(seed)")
        }
    }

    @Test(arguments: MergePolicies.all.map(\.name))
    func mergeDoesNotDependOnTheOrderOfTheVersions(name: String) throws {
        let policy = try #require(MergePolicies.named(name))
        guard !(policy is PackagePolicy) else { return }
        for seed in 0..<UInt64(MergeLawTests.cases) {
            let item = MergeLawTests.generate(seed: seed)
            let base = DocumentContent.file(Data(item.base.utf8))
            let versions = Fixtures.pair(item.x, item.y)
            let outcome = policy.merge(base: base, versions: versions)
            guard case .merged = outcome else { continue }
            #expect(policy.merge(base: base, versions: versions.reversed()) == outcome, "seed \(seed)")
        }
    }

    @Test(arguments: ["json", "json-latest", "union", "text"])
    func cleanMergeDoesNotDependOnWhichVersionIsCurrent(name: String) throws {
        let policy = try #require(MergePolicies.named(name))
        for seed in 0..<UInt64(MergeLawTests.cases) {
            let item = MergeLawTests.generate(seed: seed)
            guard applicable(policy, item) else { continue }
            let base = DocumentContent.file(Data(item.base.utf8))
            var swapped = Fixtures.pair(item.x, item.y)
            swapped[0].isCurrent = false
            swapped[1].isCurrent = true
            guard let first = Fixtures.text(policy.merge(base: base, versions: Fixtures.pair(item.x, item.y))),
                let second = Fixtures.text(policy.merge(base: base, versions: swapped))
            else { continue }
            if item.isJSON, policy is JSONMergePolicy {
                #expect(
                    try JSONValue(parsing: Data(first.utf8)) == JSONValue(parsing: Data(second.utf8)),
                    "seed \(seed) base \(item.base) x \(item.x) y \(item.y) first \(first) second \(second)")
            } else {
                #expect(first == second, "seed \(seed)")
            }
        }
    }

    @Test(arguments: ["json", "json-latest"])
    func mergedJSONAlwaysParses(name: String) throws {
        let policy = try #require(MergePolicies.named(name))
        var merged = 0
        for seed in 0..<UInt64(MergeLawTests.cases * 2) {
            let item = MergeLawTests.generate(seed: seed)
            guard item.isJSON else { continue }
            guard let text = Fixtures.text(Fixtures.merge(policy, base: item.base, item.x, item.y)) else { continue }
            merged += 1
            #expect(throws: Never.self, "seed \(seed)") { try JSONValue(parsing: Data(text.utf8)) }
        }
        #expect(merged > 50)
    }

    @Test func jsonLatestNeverNeedsAPersonForValidEdits() {
        let policy = JSONMergePolicy(settlesConflictsByLatest: true)
        for seed in 0..<UInt64(MergeLawTests.cases) {
            let item = MergeLawTests.generate(seed: seed)
            guard item.isJSON else { continue }
            #expect(!Fixtures.needsPerson(Fixtures.merge(policy, base: item.base, item.x, item.y)), "seed \(seed)")
        }
    }

    @Test func damagedInputNeverCrashes() {
        var random = SeededGenerator(seed: 99)
        for seed in 0..<UInt64(MergeLawTests.cases) {
            let item = MergeLawTests.generate(seed: seed)
            var bytes = Array(item.y.utf8)
            for _ in 0..<Int.random(in: 1...3, using: &random) where !bytes.isEmpty {
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            let versions = [
                Fixtures.version(item.x, device: "mac", clock: 1, current: true),
                MergeVersion(content: .file(Data(bytes)), id: "2", deviceName: "ipad", deviceID: "i", clock: .init(milliseconds: 2)),
            ]
            for policy in MergeLawTests.threeWay {
                let outcome = policy.merge(base: .file(Data(item.base.utf8)), versions: versions)
                if case let .merged(content?) = outcome, policy is JSONMergePolicy, let data = content.fileData {
                    #expect(throws: Never.self, "seed \(seed)") { try JSONValue(parsing: data) }
                }
            }
        }
    }
}
