internal import CGit2
internal import FoundationEssentials
internal import Glibc

/// Starting another program: the one way Concord runs one (`ssh`, `notify-send`).
package enum ChildProcess {
    /// Starts `program` (looked up on `PATH` when it has no slash) with `arguments`, with an
    /// empty signal mask and default handlers, this process's environment with `environment`
    /// over it, and no descriptor of this process but `standard` as its standard input, output
    /// and error; in a session of its own (no terminal to prompt on) unless `newSession` is false.
    /// - Returns: its process id, which the caller waits for.
    /// - Throws: the error code of `posix_spawnp` (`ENOENT` when it is not installed).
    package static func spawn(
        _ program: String, _ arguments: [String], standard: [Int32], environment: [String: String] = [:], newSession: Bool = true
    ) throws(ChildProcessError) -> Int32 {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigfillset(&defaults)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF) | (newSession ? concord_spawn_setsid_flag() : 0))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (descriptor, end) in standard.enumerated() { posix_spawn_file_actions_adddup2(&actions, end, Int32(descriptor)) }
        concord_spawn_close_from(&actions, 3)
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        let envp = ProcessInfo.processInfo.environment.merging(environment) { $1 }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = posix_spawnp(&pid, program, &actions, &attributes, argv, envp)
        guard result == 0 else { throw ChildProcessError(code: result) }
        return pid
    }
}

/// A program that could not be started: `posix_spawnp`'s error code.
package struct ChildProcessError: Error {
    /// The error number (`ENOENT`: no such program).
    package var code: Int32
    /// What it means, in the system's words.
    package var reason: String { String(cString: strerror(code)) }
}
