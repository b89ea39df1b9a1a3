internal import ConcordMerge
internal import FoundationEssentials
internal import Git
internal import GitFormat
internal import GitStore
internal import Logging

/// Rules that resolve on their own: a sync resolves, at once, every document in conflict whose
/// rule in `.concord/policies` ends with `auto`, with that rule's policy, in one resolution
/// commit like the one `concord resolve` makes (every version stays in the history), before
/// main moves and before the push: the cloud never holds such a conflict unresolved.
///
/// Two devices that resolve the same conflict concurrently converge: the resolution depends only
/// on the conflict (its versions, their common ancestor, the rules in the same tree), so both
/// write the same content, and integrating two resolutions of the same content makes no
/// conflict (their records both lost the same versions). Resolutions that differ (the rules
/// changed in between) meet as a new conflict, which the integrating device resolves and
/// pushes; the others only fast-forward to it. A resolution commit is only made where a sync
/// found a conflict, so syncs with no new edits end it.
extension ContainerCore {
    /// What a sync's automatic resolution did.
    struct AutomaticResolution {
        /// The resolution commit, on the commit it was asked for; nil when nothing was resolved.
        var commit: OID?
        /// The documents resolved, each report naming the new version.
        var reports: [ResolveReport] = []
        /// The documents an `auto` rule names that stay in conflict, and why.
        var left: [AutoResolveFailure] = []
    }

    /// Resolves, in one commit on `head` (main does not move), the documents in conflict at
    /// `head` whose rule ends with `auto`. A merge that needs a person (or cannot be made) leaves
    /// its document in conflict (``AutomaticResolution/left``). The caller holds the lock.
    func resolveAutomatically(at head: OID) throws -> AutomaticResolution {
        let headTree = try history.tree(of: head)
        let records = try history.conflictRecords(in: headTree)
        guard !records.isEmpty else { return AutomaticResolution() }
        let rules: PolicyRules
        do {
            rules = try policyRules(in: headTree)
        } catch {
            history.logger.warning("no conflict is resolved automatically: \(error)")
            return AutomaticResolution()
        }
        var result = AutomaticResolution()
        var plans: [ResolutionPlan] = []
        var beside = BesideNames()
        for document in records.map(\.document).sorted() {
            guard let rule = rules.rule(for: document.value), rule.resolvesAutomatically else { continue }
            let resolution: Resolution = rule.policyName == LatestWinsPolicy().name ? .latest : .mergeBySelection
            do {
                plans.append(try plan(document, using: resolution, head: head, headTree: headTree, dryRun: false, beside: &beside))
            } catch let error as NeedsPersonError {
                result.left.append(AutoResolveFailure(document: document, rule: rule.text, reason: "\(error.reason) (policy \(error.policy))"))
            } catch let error as ConcordError {
                result.left.append(AutoResolveFailure(document: document, rule: rule.text, reason: error.description))
            }
        }
        guard !plans.isEmpty else { return result }
        let tree = try resolvedTree(plans, headTree: headTree)
        (result.commit, result.reports) = try commitResolution(plans, tree: tree, head: head, automatically: true)
        CrashPoint.reach("sync:resolved")
        return result
    }
}
