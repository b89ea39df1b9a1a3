internal import FoundationEssentials
internal import Git
internal import Logging
internal import Synchronization

/// The sync agent's loop (see ``SyncAgent``): the watchers note what happened and wake it; it
/// decides, runs one operation at a time (save, or sync), reports, and sleeps until the next
/// news or deadline.
final class AgentLoop: Sendable {
    /// What the watchers noted since the loop last looked.
    private struct News {
        var firstEdit: ContinuousClock.Instant?
        var lastEdit: ContinuousClock.Instant?
        /// The paths edited since the last save; nil: anything may have changed.
        var edited: Set<String>? = []
        var repository = false
        var cloud = false
        /// What the last check of a network cloud's `main` found (``CloudPeek``), not yet looked at.
        var peeked: Result<String?, any Error>?
        var stop = false
    }

    /// What the loop keeps from one turn to the next.
    private struct Plan {
        var save = true
        /// What the next save compares: the paths edited, or (nil) the whole work tree.
        var scope: Set<String>?
        /// Folders the kernel refused to watch, as last warned about; while any, each save
        /// compares the whole work tree.
        var refused = 0
        var saveRetry: ContinuousClock.Instant?
        var saveFailures = 0
        var sync = true
        var syncRetry: ContinuousClock.Instant?
        var lastSync: ContinuousClock.Instant
        var failures = 0
        var offline: String?
        var lastFailure: String?
        var view: AgentView?
        var skipped: Set<String> = []
        /// The ignore rules of the last save: when they change, the next save compares the
        /// whole work tree (a file a new `!` rule re-includes was not edited, yet is now saved).
        var rules: [IgnoreRule]?
        /// While edits wait for another writer to let the container go: the wait, seen by
        /// readers (documents are `editingDisabled` meanwhile).
        var waiting: WaitingWrite?
        /// Files the last save left because their writers had not closed them, and when the
        /// first of them is saved anyway (``SyncAgent/Options/longestWrite``).
        var unsettled: Set<String> = []
        var unsettledDeadline: ContinuousClock.Instant?
        /// When the next check of a network cloud's `main` is due, and when the one under way
        /// started (nil: none is).
        var nextPeek: ContinuousClock.Instant = .now
        var peekStarted: ContinuousClock.Instant?
    }

    /// Where the loop runs (the task running it prefers it; the loop keeps it alive).
    let executor = AgentExecutor(label: "concord.agent")
    private let container: Container
    private let options: SyncAgent.Options
    private let emit: @Sendable (SyncAgentEvent) -> Void
    private let news = Mutex(News())
    private let wakeup = Wakeup()
    private var logger: Logger { container.options.logger }

    init(container: Container, options: SyncAgent.Options, emit: @escaping @Sendable (SyncAgentEvent) -> Void) {
        self.container = container
        self.options = options
        self.emit = emit
    }

    /// Asks the loop to end after the operation under way.
    func stop() {
        news.withLock { $0.stop = true }
        wakeup.signal()
    }

    private func note(_ change: (inout News) -> Void) {
        news.withLock { change(&$0) }
        wakeup.signal()
    }

    private func noteEdit(_ paths: Set<String>?) {
        let now = ContinuousClock.now
        note { news in
            news.lastEdit = now
            if news.firstEdit == nil { news.firstEdit = now }
            if let paths, let edited = news.edited, edited.count + paths.count <= 10_000 {
                news.edited = edited.union(paths)
            } else {
                news.edited = nil
            }
        }
    }

    func run() async {
        let cloud = try? container.read { $0.localCloudFolder() }
        let peek = options.peekInterval.flatMap { interval in
            interval > .zero && (try? container.read { $0.hasNetworkCloud() }) == true
                ? CloudPeek(root: container.root, lockTimeout: container.options.lockTimeout) : nil
        }
        var workTree: WorkTreeWatch?
        do {
            workTree = try WorkTreeWatch(root: container.root) { [weak self] in self?.noteEdit($0) }
        } catch {
            logger.warning("cannot watch the work tree (\(error)): edits are saved at each periodic sync")
        }
        let subscription = container.observer.subscribe { [weak self] _ in self?.note { $0.repository = true } }
        let cloudWatch = cloud.flatMap { folder in
            try? ReferenceWatch(gitDirectory: "\(folder)/", lock: false) { [weak self] in self?.note { $0.cloud = true } }
        }
        defer {
            workTree?.cancel()
            cloudWatch?.cancel()
            peek?.close()
            container.observer.unsubscribe(subscription)
        }
        report(.watching)
        var plan = Plan(lastSync: .now, view: await view(cloud: cloud))
        while true {
            let now = ContinuousClock.now
            let seen = news.withLock { news -> News in
                let seen = news
                news.repository = false
                news.cloud = false
                news.peeked = nil
                if let first = news.firstEdit, let last = news.lastEdit, now >= edited(first, last) {
                    news.firstEdit = nil
                    news.lastEdit = nil
                    news.edited = []
                }
                return seen
            }
            if seen.stop { break }
            // Before anything that may `continue`: the news is taken, and a peek's answer must
            // not be lost (no other peek starts until it is heard).
            if let peeked = seen.peeked {
                heard(peeked, plan: &plan)
            }
            if let first = seen.firstEdit, let last = seen.lastEdit, now >= edited(first, last) {
                plan.scope = plan.save ? union(plan.scope, seen.edited) : seen.edited
                plan.save = true
                plan.saveRetry = nil
            }
            if let due = plan.unsettledDeadline, now >= due {
                plan.unsettledDeadline = nil
                plan.save = true
            }
            if plan.save, plan.saveRetry.map({ now >= $0 }) ?? true {
                let refused = workTree?.refusedFolders.withLock { $0 } ?? 0
                if refused > plan.refused {
                    logger.warning(
                        "\(refused) folder\(refused == 1 ? "" : "s") of the work tree cannot be watched (the system's limit of inotify watches): each save compares the whole work tree"
                    )
                }
                plan.refused = refused
                await save(&plan, cloud: cloud, scoped: workTree != nil && refused == 0, writing: workTree?.writing.withLock { $0 } ?? [:])
                continue
            }
            if seen.repository || seen.cloud {
                await look(&plan, cloud: cloud)
            }
            if now >= plan.lastSync + options.interval {
                plan.sync = true
                plan.syncRetry = nil
                if workTree == nil && !plan.save {
                    plan.save = true
                    plan.scope = nil
                    continue
                }
            }
            if plan.sync, plan.syncRetry.map({ now >= $0 }) ?? true {
                await sync(&plan, cloud: cloud)
                continue
            }
            // A pending sync looks at the cloud itself; so does airplane mode, by not looking.
            let peeking = peek != nil && !plan.sync && plan.peekStarted == nil && plan.view?.airplane != true
            if let peek, peeking, now >= plan.nextPeek {
                start(peek, plan: &plan)
                continue
            }
            var deadlines = [plan.lastSync + options.interval]
            if peeking { deadlines.append(plan.nextPeek) }
            if let first = seen.firstEdit, let last = seen.lastEdit { deadlines.append(edited(first, last)) }
            if plan.save, let retry = plan.saveRetry { deadlines.append(retry) }
            if let due = plan.unsettledDeadline { deadlines.append(due) }
            if plan.sync, let retry = plan.syncRetry { deadlines.append(retry) }
            await wakeup.sleep(until: deadlines.min())
        }
    }

    /// When edits first made at `first` and last at `last` are due to be saved.
    private func edited(_ first: ContinuousClock.Instant, _ last: ContinuousClock.Instant) -> ContinuousClock.Instant {
        min(last + options.quietPeriod, first + options.longestWait)
    }

    // MARK: Operations

    /// Saves what the edits since the last save changed (`scoped`), or what changed in the whole
    /// work tree, leaving the files still `writing` (each with when it was first seen so) for
    /// when their writers close them, up to ``SyncAgent/Options/longestWrite``.
    private func save(_ plan: inout Plan, cloud: String?, scoped: Bool, writing: [String: ContinuousClock.Instant]) async {
        let now = ContinuousClock.now
        let unsettled = writing.filter { now < $0.value + options.longestWrite }
        let held = Set(unsettled.keys)
        plan.save = false
        var scope = scoped ? union(plan.scope, plan.unsettled).map(SaveScope.init) : nil
        plan.scope = []
        plan.unsettled = held
        plan.unsettledDeadline = unsettled.values.min().map { $0 + options.longestWrite }
        let ignoring = try? container.read { core -> (rules: [IgnoreRule], all: Bool) in
            let rules = core.ignoreRules()
            return (rules.rules, scope.map { core.allIgnored($0.paths, rules: rules) } ?? false)
        }
        if let ignoring {
            if let before = plan.rules, before != ignoring.rules { scope = nil }
            plan.rules = ignoring.rules
            // Only ignored files changed (a swap file an editor rewrites): nothing to save.
            if scope != nil, ignoring.all { return }
        }
        let compared = scope
        do {
            let container = container
            let result = try await Blocking.run {
                try container.write(.saved) { try $0.saveAll(scope: compared, holding: held) }
            }
            plan.saveFailures = 0
            plan.waiting = nil
            reportSkipped(result.skipped, plan: &plan)
            let saved = (result.added + result.changed + result.removed).sorted()
            if result.version != nil {
                report(.saved, saved)
                plan.sync = true
            }
        } catch {
            // Another writer held the container too long, or the save failed: keep its paths, retry.
            plan.save = true
            plan.scope = union(plan.scope, scope?.paths)
            plan.saveFailures += 1
            plan.saveRetry = .now + backoff(plan.saveFailures)
            if (error as? ConcordError).map({ if case .busy = $0 { true } else { false } }) == true {
                if plan.waiting == nil { plan.waiting = WaitingWrite(gitDirectory: container.gitDirectory) }
            } else {
                plan.waiting = nil
                fail(error, plan: &plan)
            }
        }
        await refresh(&plan, cloud: cloud)
    }

    private func sync(_ plan: inout Plan, cloud: String?) async {
        plan.lastSync = .now
        defer { plan.nextPeek = .now + (options.peekInterval ?? .zero) }
        await refresh(&plan, cloud: cloud)
        let before = plan.view
        if before?.airplane == true {
            plan.sync = false
            if plan.offline == nil { goOffline(.offline(reason: "airplane mode", waiting: waitingCount()), plan: &plan) }
            return
        }
        do {
            // An edit made while the sync keeps losing races is saved before it goes on.
            let started = ContinuousClock.now
            let report = try await container.sync(yielding: { [self] in news.withLock { $0.lastEdit.map { $0 > started } ?? false } })
            plan.sync = false
            plan.syncRetry = nil
            plan.failures = 0
            plan.lastFailure = nil
            if plan.offline != nil {
                plan.offline = nil
                self.report(.backOnline)
            }
            if !report.updatedDocuments.isEmpty { self.report(.received, report.updatedDocuments) }
            // New rules from another device: the save they call for compares the whole work tree.
            if report.updatedDocuments.contains(where: { $0.value == IgnoreRules.containerFile }) { plan.save = true }
            for resolution in report.autoResolved {
                self.report(.autoResolved, [resolution.document], detail: resolution.explanation)
            }
            if report.pushedCommits > 0 {
                let sent =
                    before.flatMap { before in
                        try? container.read { try $0.changedDocuments(from: before.origin, to: before.main) }
                    } ?? []
                self.report(.sent, sent.sorted())
            }
            await refresh(&plan, cloud: cloud, alsoNew: report.newConflicts, leftByRules: report.autoResolveFailures)
            return
        } catch is SyncYield {
            // The edit is saved first, once its quiet moment has passed; the sync follows.
            plan.syncRetry = .now + options.quietPeriod
        } catch let error as ConcordError {
            plan.failures += 1
            plan.syncRetry = .now + backoff(plan.failures)
            switch error {
            case .offline:
                if plan.offline == nil { goOffline(error, plan: &plan) }
            case let .cloudRefused(refusal) where refusal.cause == .writeAccess:
                // A device that may read but not write: what arrived was taken (say so), and
                // the refusal is one line until it changes; its versions wait for write access.
                if let main = before?.main, let now = await view(cloud: cloud)?.main, now != main,
                    let received = try? container.read({ try $0.changedDocuments(from: main, to: now) }), !received.isEmpty
                {
                    report(.received, received.sorted())
                }
                fail(error, plan: &plan)
            case .busy:
                break
            case .unsavedChanges:
                // An edit came after the last save: save it, then sync again.
                plan.save = true
                plan.scope = nil
                if plan.failures > 1 { fail(error, plan: &plan) }
            default:
                fail(error, plan: &plan)
            }
        } catch {
            plan.failures += 1
            plan.syncRetry = .now + backoff(plan.failures)
            fail(error, plan: &plan)
        }
        await refresh(&plan, cloud: cloud)
    }

    /// Looks at what another process or device changed: `main` moved, airplane mode, the cloud.
    private func look(_ plan: inout Plan, cloud: String?) async {
        let before = plan.view
        await refresh(&plan, cloud: cloud)
        guard let view = plan.view else { return }
        if view.main != before?.main { plan.sync = true }
        if view.airplane != before?.airplane {
            if view.airplane {
                if plan.offline == nil { goOffline(.offline(reason: "airplane mode", waiting: waitingCount()), plan: &plan) }
            } else {
                plan.sync = true
                plan.syncRetry = nil
            }
        }
        if let tip = view.cloud, tip != view.origin {
            plan.sync = true
            plan.syncRetry = nil
        }
    }

    /// Starts a check of the cloud's `main` off the loop's queue (``CloudPeek``): a slow server
    /// never delays a save; its answer comes back as news.
    private func start(_ peek: CloudPeek, plan: inout Plan) {
        plan.peekStarted = .now
        Blocking.start { [weak self] in
            let found = Result { try peek.cloudMain() }
            self?.note { $0.peeked = found }
        }
    }

    /// Acts on what a check of the cloud's `main` found: a sync when it names a commit this
    /// device has neither fetched nor made; when the cloud cannot be reached, offline (told
    /// once) and the sync's backoff, the retry being a sync. An answer older than the last sync
    /// started is dropped: that sync looked at the cloud since.
    private func heard(_ peeked: Result<String?, any Error>, plan: inout Plan) {
        let started = plan.peekStarted
        plan.peekStarted = nil
        plan.nextPeek = .now + (options.peekInterval ?? .zero)
        guard let started, started >= plan.lastSync else { return }
        switch peeked {
        case let .success(tip):
            guard let view = plan.view, !view.airplane, tip != view.origin, tip != view.main else { return }
            plan.sync = true
            plan.syncRetry = nil
        case let .failure(error):
            plan.sync = true
            plan.failures += 1
            plan.syncRetry = .now + backoff(plan.failures)
            if let error = error as? ConcordError, case .offline = error {
                if plan.offline == nil { goOffline(error, plan: &plan) }
            } else {
                fail(error, plan: &plan)
            }
        }
    }

    /// Reads the view again and reports the documents that entered or left the in-conflict state
    /// (`alsoNew`: those a sync says gained a version in contention): one event for each new
    /// conflict, saying its versions and, when its `auto` rule left it (`leftByRules`), why.
    private func refresh(_ plan: inout Plan, cloud: String?, alsoNew: [DocumentPath] = [], leftByRules: [AutoResolveFailure] = []) async {
        guard let view = await view(cloud: cloud) else { return }
        let before = plan.view?.conflicts ?? view.conflicts
        let fresh = view.conflicts.subtracting(before).union(alsoNew)
        let resolved = before.subtracting(view.conflicts)
        plan.view = view
        for document in fresh.sorted() {
            var detail = await describeConflict(document)
            if let left = leftByRules.first(where: { $0.document == document }) {
                detail = [detail, "its rule '\(left.rule)' did not resolve it: \(left.reason)"].compactMap { $0 }.joined(separator: "; ")
            }
            report(.newConflict, [document], detail: detail)
        }
        if !resolved.isEmpty { report(.resolved, resolved.sorted()) }
        // An operation on a large file leaves freed pages the allocator keeps for itself: hand
        // them back, so that an idle agent returns to about the memory it started with.
        GitLibrary.releaseFreeMemory()
    }

    /// The versions of a document in contention, in words (`A's version of DATE (current), B's
    /// of DATE`); nil when they cannot be read.
    private func describeConflict(_ document: DocumentPath) async -> String? {
        guard let versions = try? await container.offloadRead({ try $0.history.contestedVersions(of: document) }), versions.count > 1 else {
            return nil
        }
        let described = versions.map { version in
            let what = version.isDeleted ? "deletion" : "version"
            let date = version.modified.formatted(.iso8601)
            return "\(version.deviceName)'s \(what) of \(date)\(version.isCurrent ? " (current)" : "")"
        }
        return "\(versions.count) versions in contention: " + described.joined(separator: ", ")
    }

    // MARK: Helpers

    private func view(cloud: String?) async -> AgentView? {
        try? await container.offloadRead { try $0.agentView(cloud: cloud) }
    }

    private func waitingCount() -> Int { (try? container.waitingVersionCount()) ?? 0 }

    /// Two scopes of saves together (nil: the whole work tree).
    private func union(_ one: Set<String>?, _ other: Set<String>?) -> Set<String>? {
        guard let one, let other else { return nil }
        return one.union(other)
    }

    /// The wait before trying again after `failures` failures in a row: doubling up to the sync
    /// interval, with "equal jitter" (between half and all of it), so that devices that failed
    /// together (a cloud back online) do not all try again at the same moment.
    private func backoff(_ failures: Int) -> Duration {
        let full = min(.seconds(1 << min(max(failures - 1, 0), 16)), options.interval)
        return full / 2 + full / 2 * Double.random(in: 0...1)
    }

    private func goOffline(_ error: ConcordError, plan: inout Plan) {
        guard case let .offline(reason, waiting) = error else { return }
        plan.offline = reason
        report(.offline, detail: "\(reason); \(waiting) local version\(waiting == 1 ? "" : "s") wait\(waiting == 1 ? "s" : "") to go up")
    }

    private func fail(_ error: any Error, plan: inout Plan) {
        let message = (error as? ConcordError)?.description ?? "\(error)"
        guard message != plan.lastFailure else { return }
        plan.lastFailure = message
        report(.failed, detail: message)
    }

    private func reportSkipped(_ skipped: [SaveAllResult.Skipped], plan: inout Plan) {
        let now = Set(skipped.map { "\($0.path): \($0.reason)" })
        for line in now.subtracting(plan.skipped).sorted() { logger.warning("skipped \(line)") }
        plan.skipped = now
    }

    private func report(_ kind: SyncAgentEvent.Kind, _ documents: [DocumentPath] = [], detail: String? = nil) {
        emit(SyncAgentEvent(kind: kind, documents: documents, time: container.options.now(), detail: detail))
    }
}
