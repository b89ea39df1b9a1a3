import ConcordMerge
import Foundation
import Testing

/// An app's own rule: the longest version wins (what an app registers; the rule does not matter).
struct LongestWinsPolicy: MergePolicy {
    let name = "longest-test"

    func merge(base: DocumentContent?, versions: [MergeVersion]) -> MergeOutcome {
        .merged(versions.max { ($0.content?.fileData?.count ?? 0) < ($1.content?.fileData?.count ?? 0) }?.content)
    }
}

/// An app registers its own policies (issue 40): rules name them, and the names of built-in
/// policies stay theirs.
@Suite struct MergePoliciesTests {
    @Test func aRegisteredPolicyIsNamedByRules() throws {
        try MergePolicies.register(LongestWinsPolicy())
        #expect(MergePolicies.names.contains("longest-test"))
        #expect(MergePolicies.named("longest-test")?.name == "longest-test")
        let rules = try PolicyRules(text: "*.todo longest-test auto\n")
        #expect(rules.rule(for: "list.todo")?.isKnown == true)
        let versions = ["milk\nbread\n", "milk\n"].enumerated().map { index, text in
            MergeVersion(content: .file(Data(text.utf8)), id: "v\(index)", deviceName: "d\(index)", deviceID: "\(index)", clock: HybridLogicalClock(milliseconds: Int64(index)))
        }
        let policy = rules.policy(for: "list.todo", versions: versions)
        #expect(policy.name == "longest-test")
        #expect(policy.merge(base: nil, versions: versions) == .merged(.file(Data("milk\nbread\n".utf8))))
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
