public import Git
internal import GitFormat
internal import Synchronization

/// A cloud on this machine whose every call a test scripts: before a fetch, a peek or a push
/// reaches the real cloud (a bare repository, through ``LocalCloud``), the next step the test
/// queued for that call runs, and what each call did is recorded in ``log``. A test makes the
/// cloud move at the exact moment between a device's fetch and its push, or fail a given call,
/// and then checks the exact calls a sync made, with no timing and no network.
///
/// Concord reaches it in place of a container's own cloud once installed for that container
/// (`CloudSubstitution.install(containerAt:)`, Concord's testing interface); ``makeCloud()``
/// makes the cloud of each operation, and all of them share this script.
public final class ScriptedCloud: Sendable {
    /// A call a device makes to its cloud.
    public enum Call: String, Sendable {
        case fetch, peek, push
    }

    /// What happens when the call a step was queued for comes.
    public enum Step: Sendable {
        /// `action` runs (another device syncs, say), then the call reaches the cloud.
        case after(@Sendable () throws -> Void)
        /// The call fails with `error` without reaching the cloud.
        case fail(GitError)
    }

    private struct State {
        var steps: [Call: [Step]] = [:]
        var log: [String] = []
    }

    private let path: String
    private let largestObject: Int
    private let state = Mutex(State())

    /// The script of the bare repository at `path`, objects over `largestObject` bytes refused.
    public init(cloudAt path: String, largestObject: Int = 100 << 20) {
        self.path = path
        self.largestObject = largestObject
    }

    /// Queues `steps` for the next calls of `call`, after those queued before; a call with no
    /// step left reaches the cloud as it is.
    public func on(_ call: Call, _ steps: Step...) {
        state.withLock { $0.steps[call, default: []] += steps }
    }

    /// What each call did, in order: `fetch`, `peek`, `push pushed`, `push cloudMoved`, or the
    /// call's name and `failed` (whether the script or the cloud failed it).
    public var log: [String] { state.withLock { $0.log } }

    /// Forgets what was logged so far (the script's steps stay).
    public func clearLog() {
        state.withLock { $0.log = [] }
    }

    /// The cloud of one operation, following this script.
    public func makeCloud() throws -> any Cloud {
        Operation(script: self, cloud: try LocalCloud(at: path, largestObject: largestObject))
    }

    /// Runs the next step queued for `call`, then `body` (unless the step failed it), and logs
    /// what happened.
    fileprivate func perform<Result>(_ call: Call, _ body: () throws -> Result, describe: (Result) -> String?) throws -> Result {
        let step = state.withLock { $0.steps[call]?.isEmpty == false ? $0.steps[call]!.removeFirst() : nil }
        do {
            switch step {
            case let .after(action): try action()
            case let .fail(error): throw error
            case nil: break
            }
            let result = try body()
            state.withLock { $0.log.append([call.rawValue, describe(result)].compactMap { $0 }.joined(separator: " ")) }
            return result
        } catch {
            state.withLock { $0.log.append("\(call.rawValue) failed") }
            throw error
        }
    }

    private final class Operation: Cloud {
        let script: ScriptedCloud
        let cloud: LocalCloud

        init(script: ScriptedCloud, cloud: LocalCloud) {
            self.script = script
            self.cloud = cloud
        }

        var acceptedCredential: Credential? { nil }

        func fetch(_ branch: String, into repository: Repository, known: [OID], progress: (@Sendable (TransferProgress) -> Void)?) throws -> OID? {
            try script.perform(.fetch, { try cloud.fetch(branch, into: repository, known: known, progress: progress) }, describe: { _ in nil })
        }

        func peek(_ branch: String, from repository: Repository) throws -> OID? {
            try script.perform(.peek, { try cloud.peek(branch, from: repository) }, describe: { _ in nil })
        }

        func push(_ target: OID, to branch: String, expected: OID?, from repository: Repository) throws -> PushOutcome {
            try script.perform(.push, { try cloud.push(target, to: branch, expected: expected, from: repository) }, describe: { "\($0)" })
        }
    }
}
