/// Where Concord keeps what is its own, in one place: the container's records and settings
/// (`.concord/…` in the tree, which travel with it), this device's files in its git directory
/// (`.git/concord/…`, which never leave it), and Concord's references. What a tree holds under
/// ``settingsFolder`` is never a document (``isConcords(_:)``); neither is `.git` in the work tree.
enum ContainerLayout {
    // MARK: In the tree, travelling with the container

    /// The folder of Concord's records and settings at the container's root.
    static let settingsFolder = ".concord"
    /// The merge-policy rules.
    static let policies = ".concord/policies"
    /// The package patterns.
    static let packages = ".concord/packages"
    /// The container's limits (``ContainerLimits``).
    static let limits = ".concord/limits"
    /// The conflict records, one a document in conflict (``ConflictRecord``).
    static let conflicts = ".concord/conflicts"
    /// The key-value store, one file a key (``KeyValueEntry``).
    static let keyValues = ".concord/kv"

    /// True when `path` (of a tree or the work tree, from its root) is Concord's own folder or
    /// inside it.
    static func isConcords(_ path: String) -> Bool {
        path == settingsFolder || path.hasPrefix(settingsFolder + "/")
    }

    /// True when a name at the work tree's root is never a document's: git's folder or Concord's.
    static func isReservedAtRoot(_ name: String) -> Bool {
        name == ".git" || name == settingsFolder
    }

    // MARK: In the device's git directory (relative to it), never leaving the device

    /// The write lock (``ContainerLock``).
    static let lock = "concord/lock"
    /// Held by writes that wait for the lock (``WaitingWrite``).
    static let waiting = "concord/waiting"
    /// The checkout journal (``Checkout``).
    static let checkoutJournal = "concord/checkout"
    /// How the last sync ended (``LastSync``).
    static let lastSync = "concord/last-sync"
    /// The history index (``HistoryIndex``).
    static let historyIndex = "concord/history"
    /// The prefix of a history index being checked against a fresh one.
    static let historyCheck = "concord/check-"
    /// This device's own ignore rules.
    static let deviceIgnore = "concord/ignore"
    /// Held while a sync agent runs (``SyncAgent``).
    static let agent = "concord/agent"
    /// A network cloud's secrets, mode 0600 (``CloudSecrets``).
    static let credentials = "concord/credentials"

    // MARK: In a cloud on this machine (relative to its git directory)

    /// The turn of this machine's pushes (``ContainerLock``).
    static let cloudPushTurn = "concord-push.lock"
    /// Left by a push whose roll-up of the cloud waited (``Writer/maintain(_:)``): the next
    /// push rolls it up whatever its device did.
    static let cloudRollUpWaited = "concord-roll-up-waited"

    // MARK: References

    /// The device's documents.
    static let main = "refs/heads/main"
    /// The cloud's `main` as this device last accepted it.
    static let remoteMain = "refs/remotes/origin/main"
}
