internal import CGit2
internal import Foundation
internal import GitFormat
internal import GitStore

/// The one owner of a libgit2 repository handle.
///
/// Not Sendable: libgit2 objects must not be used from two threads at once and its last
/// error is kept per thread. Hold a `Repository` inside one task, or behind a lock, as
/// Concord's `Container` does. Every C object this type creates is freed before the method
/// that made it returns; what callers get back are value snapshots.
public final class Repository {
    let pointer: OpaquePointer

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
    /// The bytes of the folders read last.
    var recentTreeBytes: RecentTreeBytes { store.recentTrees }

    /// A repository over `pointer` whose objects are in `objects` (the git folder's `objects/`
    /// unless given), `gitDirectory` when libgit2 does not know it (a cloud's, wrapped).
    private init(owning pointer: OpaquePointer, gitDirectory: String? = nil, largestObject: Int = 1 << 30) throws {
        self.pointer = pointer
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

    deinit {
        git_repository_free(pointer)
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
    /// - Throws: ``GitError`` when there is no repository there.
    public static func open(at path: String) throws -> Repository {
        Libgit2.ensure()
        var handle: OpaquePointer?
        try check(
            "git_repository_open_ext",
            git_repository_open_ext(&handle, path, GIT_REPOSITORY_OPEN_NO_SEARCH.rawValue, nil))
        guard let handle else { throw GitError(message: "no repository at \(path)", function: "git_repository_open_ext") }
        return try Repository(owning: handle)
    }

    /// A repository that libgit2 sees only through its objects (`git_repository_wrap_odb`): a
    /// cloud's, opened as someone else's (``openCloud(at:largestObject:)``).
    static func wrapping(_ pointer: OpaquePointer, gitDirectory: String, largestObject: Int) throws -> Repository {
        try Repository(owning: pointer, gitDirectory: gitDirectory, largestObject: largestObject)
    }

    /// True when HEAD names a branch that has no commit yet.
    public var isEmpty: Bool {
        git_repository_is_empty(pointer) == 1
    }
}

@available(*, unavailable)
extension Repository: Sendable {}
