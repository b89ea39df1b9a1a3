import ConcordMerge
import Foundation
import Testing

/// A to-do list's own merge: every item either side has, once, in order; what an app registers.
struct TodoPolicy: MergePolicy {
    let name = "todo-test"

    func merge(base: DocumentContent?, versions: [MergeVersion]) -> MergeOutcome {
        var items: [Substring] = []
        for version in versions {
            guard let data = version.content?.fileData else { continue }
            for line in String(decoding: data, as: UTF8.self).split(separator: "\n") where !items.contains(line) { items.append(line) }
        }
        return .merged(.file(Data((items.joined(separator: "\n") + "\n").utf8)))
    }
}

/// An app registers its own policies (issue 40): rules name them, and the names of built-in
/// policies stay theirs.
@Suite struct MergePoliciesTests {
    @Test func aRegisteredPolicyIsNamedByRules() throws {
        try MergePolicies.register(TodoPolicy())
        #expect(MergePolicies.names.contains("todo-test"))
        #expect(MergePolicies.named("todo-test")?.name == "todo-test")
        let rules = try PolicyRules(text: "*.todo todo-test auto\n")
        #expect(rules.rule(for: "list.todo")?.isKnown == true)
        let versions = ["milk\nbread\n", "milk\neggs\n"].enumerated().map { index, text in
            MergeVersion(content: .file(Data(text.utf8)), id: "v\(index)", deviceName: "d\(index)", deviceID: "\(index)", clock: HybridLogicalClock(milliseconds: Int64(index)))
        }
        let policy = rules.policy(for: "list.todo", versions: versions)
        #expect(policy.name == "todo-test")
        #expect(policy.merge(base: nil, versions: versions) == .merged(.file(Data("milk\nbread\neggs\n".utf8))))
    }

    @Test(arguments: ["text", "json", "auto", "two words", "", "#x"])
    func aBuiltInOrUnwritableNameIsRefused(_ name: String) {
        struct Named: MergePolicy {
            let name: String
            func merge(base: DocumentContent?, versions: [MergeVersion]) -> MergeOutcome { .merged(nil) }
        }
        #expect(throws: MergePolicies.RegistrationError.self) { try MergePolicies.register(Named(name: name)) }
        if name == "text" { #expect(MergePolicies.named("text") is TextMergePolicy) }
    }
}
