internal import CGit2
internal import FoundationEssentials
internal import Glibc
internal import GitStore

/// libgit2's process-wide setup, done once on first use and never undone.
///
/// Concord ignores the user's global, XDG and system git configuration: a container's
/// behaviour depends only on the container, and no outside configuration can name a program
/// to run. Objects and references are written with fsync, so that a version reported saved
/// survives a power cut. Every network connection goes through ``SocketStream``, which bounds
/// how long it may wait on a server (``NetworkLimits``).
///
/// Started on first use only (a repository's handle first used, a repository made, a merge, a
/// blob's id computed, a certificate added), never by `--version`, `help` or a command that only
/// reads (``Repository/open(at:)`` defers the handle). Debian's libgit2 1.5 with mbedTLS parses
/// the whole system CA bundle inside `git_libgit2_init` (about 54 million instructions, half of
/// a one-file save); in the `concord` executable the bundle is only noted then, and parsed at the
/// first TLS connection (`concord_libgit2_init`, CGit2Loader's Authorities.c).
enum Libgit2 {
    static let initialized: Bool = {
        concord_libgit2_init()
        let levels = [GIT_CONFIG_LEVEL_SYSTEM, GIT_CONFIG_LEVEL_XDG, GIT_CONFIG_LEVEL_GLOBAL, GIT_CONFIG_LEVEL_PROGRAMDATA]
        for level in levels {
            _ = concord_git_set_search_path(level.rawValue, "/nonexistent/concord-ignores-outside-config")
        }
        _ = concord_git_enable_fsync(GitLibrary.durable ? 1 : 0)
        // Map packs in small windows and few at once, so that a large document costs memory
        // once (its buffer), not again for the pack pages that held it.
        _ = concord_git_set_mwindow_size(32 << 20)
        _ = concord_git_set_mwindow_mapped_limit(64 << 20)
        // Keep folders up to 1 MB in libgit2's object cache (by default only those under 4 KB,
        // about 100 entries): walking history reads the same folders again and again. But bound
        // the whole cache small (256 MB by default): it drops objects in no useful order, so a
        // large one helps little once the folders are wide (a flat folder of 10,000 documents is
        // a 400 KB tree in every commit); the folders read last are kept by the object store
        // (GitStore's RecentObjects), and small differences and entries by name (the memos).
        _ = concord_git_set_cache_object_limit(GIT_OBJECT_TREE, 1 << 20)
        _ = concord_git_set_cache_max_size(8 << 20)
        // Every object is hashed once when it is written or arrives (libgit2's indexer checks
        // what a network cloud sends, Concord's transfer what a cloud on this machine holds),
        // and zlib's checksum catches damage on disk when it is read, as git does; hashing
        // again at every read (SHA-1 with collision detection) was most of the cost of reading
        // a wide folder's versions.
        _ = concord_git_enable_strict_hash_verification(0)
        // Every socket libgit2 opens is Concord's, with time-outs (libgit2 1.5 has none).
        _ = SocketStream.register()
        return true
    }()

    static func ensure() { _ = initialized }
}

/// Facts about the linked libgit2.
public enum GitLibrary {
    /// False only when the environment sets `CONCORD_UNSAFE_NO_FSYNC=1`: objects, references and
    /// work-tree files are then not synced to disk (a power cut can lose them). For measuring
    /// what durability costs; never for real use.
    public static let durable: Bool = ProcessVariable.value("CONCORD_UNSAFE_NO_FSYNC") != "1"

    /// Flushes every file written so far on the file system that holds `descriptor` (the data
    /// of files, new names and removals alike), waiting for the writes to finish: `syncfs(2)`.
    /// Does nothing when not ``durable``.
    /// - Returns: the `errno` of a failed flush, nil when it succeeded.
    public static func syncFileSystem(containing descriptor: Int32) -> Int32? {
        guard durable else { return nil }
        return concord_syncfs(descriptor) == 0 ? nil : errno
    }

    /// Hands the free pages the allocator keeps back to the system (`malloc_trim(3)`): after an
    /// operation on a large file, a long-running process returns to about the memory it had.
    public static func releaseFreeMemory() {
        concord_malloc_trim()
    }

    /// Makes the allocator give large blocks back to the system when they are freed, for a
    /// process that lives long and meets large files (the sync agent): a block of 1 MiB or more
    /// is mapped on its own and unmapped when freed, and a thread's arena returns its free top
    /// past 2 MiB. glibc's default instead raises both thresholds after a large block is freed,
    /// so that every thread that handled a 20 MiB file kept about 30 MiB it no longer used,
    /// which `malloc_trim(3)` does not return from a thread's arena (with 4 and 16 MiB, an agent
    /// still kept 14 to 31 MiB after three 24 MiB files; with these, 2 to 3). Process-wide;
    /// idempotent.
    public static func returnLargeBlocksWhenFreed() {
        _ = largeBlocksReturned
    }

    private static let largeBlocksReturned: Bool = {
        concord_malloc_set_thresholds(1 << 20, 2 << 20)
        return true
    }()

    /// Version of the linked libgit2, as "major.minor.revision".
    public static var version: String {
        var major: Int32 = 0, minor: Int32 = 0, revision: Int32 = 0
        git_libgit2_version(&major, &minor, &revision)
        return "\(major).\(minor).\(revision)"
    }
}
