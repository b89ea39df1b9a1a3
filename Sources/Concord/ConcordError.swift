internal import Git
internal import GitFormat

/// Why a Concord operation failed. Every case reads as one line for a person.
public enum ConcordError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A document path was refused (leaves the container, names `.git` or `.concord`, not UTF-8, …).
    case invalidPath(String, reason: String)
    /// The folder is not a Concord container.
    case notAContainer(String)
    /// The folder already holds a container (or another git repository).
    case alreadyAContainer(String)
    /// The cloud already holds a container: join it with `clone` instead.
    case cloudHasContainer(String)
    /// The container has no cloud to sync with.
    case noCloud
    /// No such document in the container.
    case noSuchDocument(String)
    /// A document or folder of that name exists already (the new name of a rename).
    case documentExists(String)
    /// A save found nothing to save: the document is absent from the work tree and no content was given.
    case missingInput(String)
    /// The id is not a version of the document.
    case unknownVersion(String, document: String)
    /// The document is not in conflict.
    case notInConflict(String)
    /// The id names a version that is not one of the document's versions in contention.
    case notAContestedVersion(String, document: String)
    /// No merge policy has this name.
    case unknownPolicy(String, known: [String])
    /// The cloud cannot be used now (airplane mode, or unreachable); local versions wait.
    case offline(reason: String, waiting: Int)
    /// Another process holds the container and did not let go in time.
    case busy(String)
    /// The cloud answered but could not be used: credentials, host key or certificate refused.
    case cloudRefused(CloudRefusal)
    /// The cloud kept moving while this device tried to push.
    case cloudKeptMoving(attempts: Int)
    /// Work-tree files that a sync or resolve would overwrite hold changes that are not saved.
    case unsavedChanges([String])
    /// The ignore rules leave this path out: it is not saved (``IgnoreRule``).
    case ignored(String, rule: IgnoreRule)
    /// A package held something that cannot be a document's content.
    case invalidPackage(String, reason: String)
    /// A file could not be read or written.
    case io(String, reason: String)
    /// This device cannot hold a file at that path: its file system refuses the name, or a link
    /// or a file stands where a folder of the path should be.
    case notWritable(String, reason: String)
    /// The repository is damaged or a git operation failed: what Concord was doing, and what
    /// git (libgit2, or Concord's own reader of git's formats) said.
    case git(String, context: String)
    /// A key or value of the key-value store was refused (limits, invalid JSON).
    case keyValue(String)
    /// A commit from the cloud holds an entry that no device may write; nothing of it was taken.
    case refusedFromCloud(commit: String, path: String, reason: String)
    /// A commit from the cloud is itself refused (a message over the limit); nothing of it was taken.
    case refusedCommitFromCloud(commit: String, reason: String)
    /// The cloud at the URL (shown without secrets) was reached, but what it sent is missing,
    /// damaged or malformed (a commit or folder that cannot be read); nothing of it was taken.
    case damagedFromCloud(url: String, reason: String)
    /// Anything else, said plainly.
    case failed(String)

    public var description: String {
        switch self {
        case let .invalidPath(path, reason): "invalid document path '\(path)': \(reason)"
        case let .notAContainer(path): "\(path) is not a Concord container"
        case let .alreadyAContainer(path): "\(path) already holds a git repository"
        case let .cloudHasContainer(url): "the cloud \(url) already holds a container: join it as a new device instead"
        case .noCloud: "this container has no cloud"
        case let .noSuchDocument(path): "no document '\(path)' in this container"
        case let .documentExists(path): "'\(TerminalText.escaped(path))' exists already: nothing was renamed"
        case let .missingInput(path): "'\(path)' is not in the work tree, and no content was given"
        case let .unknownVersion(id, document): "'\(id)' is not a version of '\(document)'"
        case let .notInConflict(path): "'\(path)' is not in conflict"
        case let .notAContestedVersion(id, document): "'\(id)' is not one of the versions of '\(document)' in contention"
        case let .unknownPolicy(name, known): "unknown merge policy '\(name)' (known: \(known.joined(separator: ", ")))"
        case let .offline(reason, waiting):
            "offline (\(reason)): \(waiting) local version\(waiting == 1 ? "" : "s") wait\(waiting == 1 ? "s" : "") to go up"
        case let .busy(path): "container busy: another process is writing \(path); try again"
        case let .cloudRefused(refusal): refusal.description
        case let .cloudKeptMoving(attempts): "the cloud kept moving: gave up after \(attempts) attempts to push; nothing was lost, sync again"
        case let .unsavedChanges(paths):
            "not saved: \(paths.joined(separator: ", ")) changed in the work tree; save first, then retry"
        case let .ignored(path, rule): "'\(TerminalText.escaped(path))' is ignored by \(rule): not saved"
        case let .invalidPackage(path, reason): "package '\(path)' refused: \(reason)"
        case let .io(path, reason): "\(path): \(reason)"
        case let .notWritable(path, reason): "\(path): cannot be written here: \(reason)"
        case let .git(message, context): "\(context): \(message)"
        case let .keyValue(message): "key-value store: \(message)"
        case let .refusedFromCloud(commit, path, reason):
            "refused the cloud's commit \(commit): '\(TerminalText.escaped(path))' is \(reason); nothing was written, and this device keeps its own versions (whoever writes to the cloud must remove that commit)"
        case let .refusedCommitFromCloud(commit, reason):
            "refused the cloud's commit \(commit): \(reason); nothing was written, and this device keeps its own versions (whoever writes to the cloud must remove that commit)"
        case let .damagedFromCloud(url, reason):
            "refused what the cloud \(url) sent: \(TerminalText.escaped(reason)); it is missing, damaged or malformed, nothing of it was taken, and this device keeps its own versions (whoever writes to the cloud must repair it)"
        case let .failed(message): message
        }
    }
}

extension ConcordError {
    /// Wraps a libgit2 failure with what Concord was doing.
    static func wrap<T>(_ context: @autoclosure () -> String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as GitError {
            throw ConcordError.git(error.message, context: context())
        }
    }
}
