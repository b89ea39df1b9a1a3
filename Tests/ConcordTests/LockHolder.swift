import Foundation

/// Another process holding a container's write lock (util-linux `flock` standing in for its
/// sync) until ``release()``: no step of a test depends on a timing.
final class LockHolder {
    private let process = Process()
    private let input = Pipe()

    /// Starts the holder on `root`'s lock and returns once the lock is taken.
    init(containerAt root: String) async throws {
        let lock = "\(root)/.git/concord/lock"
        process.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        process.arguments = ["-o", lock, "cat"]
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        var held = false
        for _ in 0..<600 where !held {
            let probe = Process()
            probe.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
            probe.arguments = ["-n", "-s", lock, "true"]
            try probe.run()
            probe.waitUntilExit()
            held = probe.terminationStatus != 0
            if !held { try await Task.sleep(for: .milliseconds(50)) }
        }
        guard held else {
            process.terminate()
            throw CocoaError(.fileLocking)
        }
    }

    /// Lets the lock go and waits for the holder to end.
    func release() throws {
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    deinit { if process.isRunning { process.terminate() } }
}
