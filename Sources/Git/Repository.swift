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
    /// Objects already checked readable (objects never change, so once is enough).
    var verifiedObjects = Set<OID>()
    /// The objects being written in memory, inside ``writingOnePack(_:)``.
    var pendingPack: PendingPack?
    /// Small differences between two trees, computed once (``forEachDifference(_:_:_:)``).
    var differences = DifferenceMemo()
    /// Entries of folders already looked up by name (``child(_:of:)``).
    var children = ChildMemo()
    /// The folders read last, kept parsed (``lookupTree(_:)``).
    let recentTrees = RecentTrees(limit: 4 << 20)
    /// The bytes of the folders read last (``treeBytes(_:)``).
    let recentTreeBytes = RecentTreeBytes(limit: 16 << 20)
    /// Folders indexed for lookups by name (``child(_:of:)``), the newest first.
    var indexedFolders: [(id: OID, index: RawTree.Index)] = []
    /// The packs, opened to read folders' entries directly (``treeBytes(_:)``).
    // libgit2 lists the packs after this does: an object found in a pack here is one libgit2
    // reads from a pack (``ensureReadable(_:_:)`` relies on it).
    private(set) lazy var storedPacks =
        objectFolder?.packs ?? StoredPacks(folder: gitDirectory + "objects/pack/") { [unowned self] in try? refreshObjects() }
    /// For a repository whose objects libgit2 never reads from disk (a cloud on this machine,
    /// ``openCloud(at:largestObject:)``): the folder that serves every read, with Concord's checks.
    let objectFolder: ObjectFolder?
    /// The largest object Concord's own readers inflate or rebuild, in bytes: anything claiming
    /// more is refused before memory is spent on it. A cloud's is the container's limit for one
    /// file; a device's own, 1 GiB.
    public var largestObject = 1 << 30

    private init(owning pointer: OpaquePointer) {
        self.pointer = pointer
        gitDirectory = String(cString: git_repository_path(pointer))
        workDirectory = git_repository_workdir(pointer).map { String(cString: $0) }
        objectFolder = nil
    }

    /// A repository over `pointer` (made with `git_repository_wrap_odb`) whose objects are
    /// `folder`'s, for the git folder `gitDirectory`.
    init(wrapping pointer: OpaquePointer, gitDirectory: String, objects folder: ObjectFolder) {
        self.pointer = pointer
        self.gitDirectory = gitDirectory
        workDirectory = nil
        objectFolder = folder
        largestObject = folder.largestObject
    }

    deinit {
        recentTrees.removeAll()
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
        return Repository(owning: handle)
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
        return Repository(owning: handle)
    }

    /// True when HEAD names a branch that has no commit yet.
    public var isEmpty: Bool {
        git_repository_is_empty(pointer) == 1
    }
}

@available(*, unavailable)
extension Repository: Sendable {}
