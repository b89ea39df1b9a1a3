/// What a rule naming a policy this process does not know selects: every merge needs a person,
/// with the reason. Another program (the app that registers the policy) can merge them; here
/// the other rules still apply, and nothing falls back to a policy the rule did not name.
struct UnregisteredPolicy: MergePolicy {
    /// The name the rule gives.
    let name: String

    func merge(base: DocumentContent?, versions: [MergeVersion]) -> MergeOutcome {
        .needsPerson(
            reason: "its rule names the policy \(QuotedText.quoted(name)), which this program does not know (an app adds its own with MergePolicies.register)",
            markedUp: nil)
    }
}
