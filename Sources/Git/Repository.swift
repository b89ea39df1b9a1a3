internal import CGit2
internal import FoundationEssentials
internal import Glibc
internal import GitFormat
internal import GitStore

/// The one owner of a libgit2 repository handle.
///
/// Not Sendable: libgit2 objects must not be used from two threads at once and its last
/// error is kept per thread. Hold a `Repository` inside one task, or behind a lock, as
/// Concord's `Container` does. Every C object this type creates is freed before the method
/// that made it returns; what callers get back are value snapshots.
public final class Repository {
    /// libgit2's handle: made with the repository, or, for a work tree opened with
    /// ``open(at:)``, on first use (``pointer``), so that a command that only reads what Concord
    /// reads itself (references, configuration, objects) never starts libgit2.
    private var handle: OpaquePointer?
    /// The folder libgit2 opens the handle from on first use; nil when it was made at once.
    private let deferredPath: String?

    /// The `.git` folder (or the folder of a bare repository), with a trailing slash.
    public let gitDirectory: String
    /// The work tree, with a trailing slash; nil for a bare repository.
    public let workDirectory: String?
    /// The repository's objects: every read and write, Concord's and libgit2's, goes through it
    /// (libgit2's object database is a backend over it, ``installStoreBackend()``).
    let store: ObjectStore
    /// The largest object Concord's own readers inflate or rebuild, in bytes: anything claiming
    /// more is refused before memory is spent on it. A cloud's is the container's limit for one
    /// file; a device's own, 1 GiB.
    public var largestObject: Int {
        get { store.largestObject }
        set { store.largestObject = newValue }
    }
    /// The packs, opened to read entries directly.
    var storedPacks: StoredPacks { store.packs }

    /// libgit2's handle of the repository, opened (and libgit2 started) on first use.
    /// - Throws: ``GitError`` when libgit2 cannot open it.
    var pointer: OpaquePointer {
        get throws {
            if let handle { return handle }
            guard let deferredPath else { throw GitError(message: "the repository's handle is gone", function: "Repository") }
            let opened = try Self.openHandle(deferredPath)
            handle = opened
            do {
                try installStoreBackend()
            } catch {
                git_repository_free(opened)
                handle = nil
                throw error
            }
            return opened
        }
    }

    /// A repository over `pointer` whose objects are in `objects` (the git folder's `objects/`
    /// unless given), `gitDirectory` when libgit2 does not know it (a cloud's, wrapped).
    private init(owning pointer: OpaquePointer, gitDirectory: String? = nil, largestObject: Int = 1 << 30) throws {
        handle = pointer
        deferredPath = nil
        let directory = gitDirectory ?? String(cString: git_repository_path(pointer))
        self.gitDirectory = directory
        workDirectory = gitDirectory == nil ? git_repository_workdir(pointer).map { String(cString: $0) } : nil
        store = ObjectStore(path: directory + "objects/", largestObject: largestObject, durable: GitLibrary.durable)
        do {
            try installStoreBackend()
        } catch {
            git_repository_free(pointer)
            throw error
        }
    }

    /// A work tree's repository whose libgit2 handle is opened from `path` on first use.
    private init(deferring path: String, gitDirectory: String, workDirectory: String) {
        deferredPath = path
        self.gitDirectory = gitDirectory
        self.workDirectory = workDirectory
        store = ObjectStore(path: gitDirectory + "objects/", largestObject: 1 << 30, durable: GitLibrary.durable)
    }

    deinit {
        if let handle { git_repository_free(handle) }
    }

    /// Creates a repository whose HEAD names `refs/heads/<initialBranch>`.
    /// - Throws: ``GitError`` when the folder cannot be made or already holds a repository
    ///   that libgit2 refuses to reinitialise.
    public static func create(at path: String, bare: Bool, initialBranch: String = "main") throws -> Repository {
        Libgit2.ensure()
        var options = git_repository_init_options()
        try check(
            "git_repository_init_options_init",
            git_repository_init_options_init(&options, UInt32(GIT_REPOSITORY_INIT_OPTIONS_VERSION)))
        options.flags = GIT_REPOSITORY_INIT_MKPATH.rawValue | GIT_REPOSITORY_INIT_NO_REINIT.rawValue
        if bare { options.flags |= GIT_REPOSITORY_INIT_BARE.rawValue }
        var handle: OpaquePointer?
        try initialBranch.withCString { head in
            options.initial_head = head
            try check("git_repository_init_ext", git_repository_init_ext(&handle, path, &options))
        }
        guard let handle else { throw GitError(message: "no repository was made at \(path)", function: "git_repository_init_ext") }
        return try Repository(owning: handle)
    }

    /// Opens the repository at exactly `path` (its work tree or its git folder); never searches upward.
    /// A work tree whose `.git` is a folder is opened without libgit2, which starts on first use.
    /// - Throws: ``GitError`` when there is no repository there.
    public static func open(at path: String) throws -> Repository {
        if let root = workTreeRoot(path) {
            return Repository(deferring: path, gitDirectory: root + ".git/", workDirectory: root)
        }
        return try Repository(owning: openHandle(path))
    }

    /// libgit2's handle of the repository at exactly `path`, libgit2 started first; the caller owns it.
    private static func openHandle(_ path: String) throws -> OpaquePointer {
        Libgit2.ensure()
        var handle: OpaquePointer?
        try check(
            "git_repository_open_ext",
            git_repository_open_ext(&handle, path, GIT_REPOSITORY_OPEN_NO_SEARCH.rawValue, nil))
        guard let handle else { throw GitError(message: "no repository at \(path)", function: "git_repository_open_ext") }
        return handle
    }

    /// The real path of `path`, with a trailing slash, when it is a work tree whose `.git` is a
    /// folder holding `HEAD` (a file) and `objects/` and `refs/` (folders), as libgit2 would name
    /// it; nil otherwise (libgit2 then opens it at once, and says what is wrong).
    private static func workTreeRoot(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        let root = String(cString: resolved)
        let base = root.hasSuffix("/") ? root : root + "/"
        func isKind(_ relative: String, _ kind: mode_t) -> Bool {
            var status = stat()
            return lstat(base + relative, &status) == 0 && status.st_mode & S_IFMT == kind
        }
        guard isKind(".git", S_IFDIR), isKind(".git/HEAD", S_IFREG), isKind(".git/objects", S_IFDIR), isKind(".git/refs", S_IFDIR) else {
            return nil
        }
        return base
    }

    /// A repository that libgit2 sees only through its objects (`git_repository_wrap_odb`): a
    /// cloud's, opened as someone else's (``openCloud(at:largestObject:)``).
    static func wrapping(_ pointer: OpaquePointer, gitDirectory: String, largestObject: Int) throws -> Repository {
        try Repository(owning: pointer, gitDirectory: gitDirectory, largestObject: largestObject)
    }

    /// True when HEAD names a branch that has no commit yet.
    public var isEmpty: Bool {
        (try? pointer).map { git_repository_is_empty($0) == 1 } ?? false
    }
}

@available(*, unavailable)
extension Repository: Sendable {}
