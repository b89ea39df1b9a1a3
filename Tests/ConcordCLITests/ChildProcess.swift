import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Git

/// A long-lived child process started by a test and stopped by its PID.
///
/// Spawned as Concord spawns (`Git.ChildProcess`: an empty signal mask and default handlers): a
/// child started by Foundation's Process can inherit blocked signals and ignore SIGTERM.
struct ChildProcess {
    let pid: pid_t

    /// Starts `arguments[0]` (looked up on PATH) with `environment` added to this process's,
    /// its standard output and error appended to the files given (else inherited), standard
    /// input from /dev/null.
    init(_ arguments: [String], environment: [String: String] = [:], stdout: String? = nil, stderr: String? = nil) throws {
        let input = open("/dev/null", O_RDONLY | O_CLOEXEC)
        let output = stdout.map { open($0, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644) } ?? dup(1)
        let errors = stderr.map { open($0, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644) } ?? dup(2)
        defer { [input, output, errors].forEach { close($0) } }
        do {
            pid = try Git.ChildProcess.spawn(
                arguments[0], Array(arguments.dropFirst()), standard: [input, output, errors], environment: environment, newSession: false)
        } catch {
            throw NSError(domain: "ChildProcess", code: Int(error.code))
        }
    }

    /// Sends `signal` (SIGTERM by default) and waits up to `seconds` for the exit, then sends
    /// SIGKILL and waits for good. Returns the exit status when the child exited by itself
    /// (nil when it was killed by a signal).
    @discardableResult
    func stop(signal: Int32 = SIGTERM, within seconds: Double = 3) -> Int32? {
        kill(pid, signal)
        if let code = exitStatus(within: seconds) { return code }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        return nil
    }

    /// Waits up to `seconds` for the child to exit by itself; returns its exit status, nil when
    /// it still runs (or a signal ended it).
    func exitStatus(within seconds: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        var status: Int32 = 0
        while Date() < deadline {
            if waitpid(pid, &status, WNOHANG) == pid { return Self.exitCode(status) }
            usleep(50_000)
        }
        return nil
    }

    /// Waits up to `seconds` for the child to exit by itself, killing its own child (the program
    /// it started, as GNU `time` starts one) at once when that holds more than `memoryLimit`
    /// bytes, so that a test never lets one grow without bound. Returns `.some(status)` when
    /// it exited (its exit code, nil when a signal ended it), nil when it still runs.
    func exitStatus(within seconds: Double, killingAbove memoryLimit: Int) -> Int32?? {
        let deadline = Date().addingTimeInterval(seconds)
        var status: Int32 = 0
        while Date() < deadline {
            if waitpid(pid, &status, WNOHANG) == pid { return .some(Self.exitCode(status)) }
            for grandchild in children where Self.residentBytes(of: grandchild) > memoryLimit { kill(grandchild, SIGKILL) }
            usleep(50_000)
        }
        return nil
    }

    /// The processes the child started.
    private var children: [pid_t] {
        let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
        return text.split(separator: " ").compactMap { pid_t($0) }
    }

    /// The memory a process holds now (its resident set, from `/proc/PID/statm`); 0 when unknown.
    private static func residentBytes(of process: pid_t) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/\(process)/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Kills the child at once (SIGKILL) and reaps it.
    func kill9() {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }

    /// The exit code of a wait status, nil when a signal ended the process.
    private static func exitCode(_ status: Int32) -> Int32? {
        (status & 0x7f) == 0 ? (status >> 8) & 0xff : nil
    }
}
