internal import CGit2
internal import Glibc

extension Repository {
    /// Opens the repository at `path` (a bare repository, or a folder holding one as `.git`)
    /// as a cloud: someone else's, read without trusting it. libgit2 knows it only through its
    /// objects, served by Concord's object store as a device's are (libgit2 never opens its
    /// configuration, alternates or hooks), objects over `largestObject` bytes are refused
    /// unread, and its references are read and moved only by ``LocalCloud``.
    /// - Throws: ``GitError`` (``GitError/isNoRepository``) when `path` holds no repository.
    public static func openCloud(at path: String, largestObject: Int) throws -> Repository {
        Libgit2.ensure()
        guard let gitDirectory = cloudGitDirectory(path) else {
            throw GitError(
                code: .notFound, errorClass: .repository,
                message: "\(path) holds no repository", function: "openCloud")
        }
        var handle: OpaquePointer?
        try check("git_repository_new", git_repository_new(&handle))
        guard let handle else { throw GitError(message: "no repository for \(path)", function: "git_repository_new") }
        return try wrapping(handle, gitDirectory: gitDirectory, largestObject: largestObject)
    }

    /// The git folder of the repository at `path`, with a trailing slash: `path` itself when it
    /// is a bare repository, `path/.git` when that is one; nil otherwise. Links are not followed
    /// below `path`.
    private static func cloudGitDirectory(_ path: String) -> String? {
        let base = path.hasSuffix("/") ? path : path + "/"
        for candidate in [base, base + ".git/"] {
            var objects = stat(), head = stat()
            if lstat(candidate + "objects", &objects) == 0, objects.st_mode & S_IFMT == S_IFDIR,
                lstat(candidate + "HEAD", &head) == 0, head.st_mode & S_IFMT == S_IFREG
            {
                return candidate
            }
        }
        return nil
    }
}
