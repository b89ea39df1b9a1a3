internal import FoundationEssentials
internal import GitStore
internal import Git
internal import GitFormat
#if canImport(Glibc)
internal import Glibc
#endif

/// The secrets of a container's cloud — a user name and password (or token), a URL's query —
/// kept in `.git/concord/credentials`, which only the owner can read or write (0600). They
/// never go into `.git/config`, and they are used only for the cloud URL they were given with.
struct CloudSecrets: Codable, Equatable {
    /// The cloud URL (without secrets) the secrets belong to.
    var url: String
    /// The user name (for https, possibly a token).
    var username: String?
    /// The password or token.
    var password: String?
    /// The URL's query, without its `?`.
    var query: String?

    /// Where the store of the repository whose git folder is `gitDirectory` lives.
    static func file(gitDirectory: String) -> String { gitDirectory + ContainerLayout.credentials }

    /// The stored secrets for `url`; nil when none are stored, or they belong to another URL.
    /// - Throws: ``ConcordError/io(_:reason:)`` when the store exists but cannot be read.
    static func load(gitDirectory: String, url: String) throws -> CloudSecrets? {
        let path = file(gitDirectory: gitDirectory)
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path),
            let secrets = try? JSONDecoder().decode(CloudSecrets.self, from: data)
        else {
            throw ConcordError.io(path, reason: "the cloud's credentials cannot be read: remove the file and give them again")
        }
        return secrets.url == url ? secrets : nil
    }

    /// Writes the store atomically, created readable and writable by the owner only.
    /// - Throws: ``ConcordError/io(_:reason:)`` when it cannot be written.
    func save(gitDirectory: String) throws {
        let path = Self.file(gitDirectory: gitDirectory)
        let folder = PathText.folder(of: path)
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(self)
        let temporary = "\(path).tmp-\(getpid())"
        unlink(temporary)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw failure(path, "cannot create") }
        let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let flushed = written == data.count && (!GitLibrary.durable || fsync(descriptor) == 0)
        guard close(descriptor) == 0, flushed, rename(temporary, path) == 0 else {
            let error = failure(path, "cannot write")
            unlink(temporary)
            throw error
        }
        if GitLibrary.durable {
            let directory = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if directory >= 0 {
                fsync(directory)
                close(directory)
            }
        }
    }

    /// Removes the store; nothing happens when there is none.
    static func remove(gitDirectory: String) {
        unlink(file(gitDirectory: gitDirectory))
    }

    private func failure(_ path: String, _ what: String) -> ConcordError {
        ConcordError.io(path, reason: "\(what) the cloud's credentials: \(String(cString: strerror(errno)))")
    }
}
