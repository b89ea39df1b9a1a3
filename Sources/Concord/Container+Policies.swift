internal import ConcordMerge

extension Container {
    /// The merge-policy rules of `.concord/policies` (empty text when there are none).
    @available(*, noasync, message: "blocks on disk: from async code, await the async form")
    public func policiesText() throws -> String {
        try read { try $0.settingsText(ContainerLayout.policies) }
    }

    /// The async form of the call above: the same work on a queue of its own (``Blocking``), so that the caller's
    /// executor (the main actor of an app) never waits on disk.
    public func policiesText() async throws -> String {
        try await offloadRead { try $0.settingsText(ContainerLayout.policies) }
    }

    /// Replaces `.concord/policies` (lines `PATTERN POLICY-NAME [id=KEY,…] [auto]`, first match
    /// wins; `auto` last: sync resolves that pattern's conflicts on its own), after checking them:
    /// every policy named must be known to this process (built in, or registered with
    /// ``MergePolicies/register(_:)``), which catches a mistyped name.
    /// - Throws: ``ConcordError/failed(_:)`` naming the first bad line; nothing changes then.
    @available(*, noasync, message: "blocks on disk: from async code, await the async form")
    public func setPolicies(_ text: String) throws {
        let rules: PolicyRules
        do {
            rules = try PolicyRules(text: text)
        } catch {
            throw ConcordError.failed("\(error)")
        }
        if let unknown = rules.rules.first(where: { !$0.isKnown }) {
            throw ConcordError.failed(
                ".concord/policies line \(unknown.line): unknown policy \"\(unknown.policyName)\" (known: \(MergePolicies.names.joined(separator: ", ")); an app adds its own with MergePolicies.register)"
            )
        }
        try write(.saved) { try $0.saveSettings(ContainerLayout.policies, text: text) }
    }

    /// The async form of the call above: the same work on a queue of its own (``Blocking``), so that the caller's
    /// executor (the main actor of an app) never waits on disk.
    public func setPolicies(_ text: String) async throws {
        try await background { try self.setPolicies(text) }
    }
}
