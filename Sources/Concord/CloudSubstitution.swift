internal import FoundationEssentials
public import Git
internal import Synchronization

/// Clouds that tests put in place of a container's own: a container whose folder is named here
/// reaches the cloud that the installed function makes, for every sync, peek, push and clone,
/// instead of the transport its address names (`TestSupport`'s `ScriptedCloud`, which scripts
/// each call and records what happened, is what tests install).
///
/// Keyed by the container's folder, so that the other devices of a test reach the real cloud.
/// Nothing is installed outside tests.
@_spi(Testing) public enum CloudSubstitution {
    private static let installed = Mutex<[String: @Sendable () throws -> any Cloud]>([:])

    /// From now on, the container at `containerPath` reaches the cloud `make` returns (made
    /// anew for each operation) until ``remove(containerAt:)``.
    public static func install(containerAt containerPath: String, _ make: @escaping @Sendable () throws -> any Cloud) {
        installed.withLock { $0[key(containerPath)] = make }
    }

    /// The container at `containerPath` reaches its own cloud again.
    public static func remove(containerAt containerPath: String) {
        installed.withLock { $0[key(containerPath)] = nil }
    }

    /// The cloud in place of `repository`'s own; nil when none is installed (always, outside tests).
    static func cloud(for repository: Repository) throws -> (any Cloud)? {
        guard let folder = repository.workDirectory else { return nil }
        guard let make = installed.withLock({ $0.isEmpty ? nil : $0[key(folder)] }) else { return nil }
        return try make()
    }

    private static func key(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }
}
