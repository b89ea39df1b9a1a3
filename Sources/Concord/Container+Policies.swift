internal import ConcordMerge

extension Container {
    /// The merge-policy rules of `.concord/policies` (empty text when there are none).
    public func policiesText() throws -> String {
        try withCore { try $0.settingsText(ContainerCore.policiesFile) }
    }

    /// Replaces `.concord/policies` (lines `PATTERN POLICY-NAME [id=KEY,…] [auto]`, first match
    /// wins; `auto` last: sync resolves that pattern's conflicts on its own), after checking them.
    /// - Throws: ``ConcordError/failed(_:)`` naming the first bad line; nothing changes then.
    public func setPolicies(_ text: String) throws {
        do {
            _ = try PolicyRules(text: text)
        } catch {
            throw ConcordError.failed("\(error)")
        }
        try notifying { try withCore { try $0.saveSettings(ContainerCore.policiesFile, text: text) } }
    }
}
