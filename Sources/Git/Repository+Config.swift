internal import CGit2
internal import Glibc
internal import GitFormat
internal import GitStore

extension Repository {
    /// A value from the repository's own configuration (`.git/config`); nil when unset. Read
    /// from the file (``ConfigFile``), without libgit2, unless it includes other files.
    /// - Throws: ``GitError`` when the configuration cannot be read or is malformed.
    public func config(_ key: String) throws -> String? {
        let path = gitDirectory + "config"
        let bytes: [UInt8]
        do {
            bytes = try RegularFile.read(path, largest: Self.largestConfiguration)
        } catch let error as StoreError where error.kind == .notFound {
            return nil
        } catch let error as StoreError {
            throw GitError(error)
        }
        let file = try readingFormat(file: path) { try ConfigFile(bytes) }
        return file.hasIncludes ? try includingConfig(key) : file.value(key)
    }

    /// The most bytes of `.git/config` read.
    static let largestConfiguration = 1 << 20

    /// ``config(_:)`` as libgit2 reads it, following `include` sections.
    private func includingConfig(_ key: String) throws -> String? {
        var config: OpaquePointer?
        try check("git_repository_config_snapshot", git_repository_config_snapshot(&config, pointer))
        defer { git_config_free(config) }
        var value: UnsafePointer<CChar>?
        let result = git_config_get_string(&value, config, key)
        if result == GIT_ENOTFOUND.rawValue {
            git_error_clear()
            return nil
        }
        try check("git_config_get_string", result)
        return value.map { String(cString: $0) }
    }

    /// Sets a value in the repository's own configuration; nil removes it. The file is flushed to
    /// disk with its folder before this returns (libgit2 moves a new `.git/config` into place
    /// without a flush, and a power cut could lose a device's id or airplane mode).
    /// - Throws: ``GitError`` when the configuration cannot be written.
    public func setConfig(_ key: String, _ value: String?) throws {
        var config: OpaquePointer?
        try check("git_repository_config", git_repository_config(&config, pointer))
        defer { git_config_free(config) }
        if let value {
            try check("git_config_set_string", git_config_set_string(config, key, value))
        } else {
            let result = git_config_delete_entry(config, key)
            if result == GIT_ENOTFOUND.rawValue {
                git_error_clear()
                return
            }
            try check("git_config_delete_entry", result)
        }
        flushConfiguration()
    }

    private func flushConfiguration() {
        guard GitLibrary.durable else { return }
        for path in [gitDirectory + "config", gitDirectory] {
            let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { continue }
            fsync(descriptor)
            close(descriptor)
        }
    }
}
