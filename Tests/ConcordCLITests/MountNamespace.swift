import Foundation

/// A command run in a mount namespace of its own (util-linux `unshare`), with one file bound
/// over another there: the rest of the machine never sees the change.
enum MountNamespace {
    /// True when this process may make one (root, or the capability to mount).
    static let available: Bool = {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else { return false }
        return (try? run(["/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/true"]).status) == 0
    }()

    /// Runs `command` with `file` bound over `target` in a new mount namespace.
    static func run(binding file: String, over target: String, _ command: [String], environment: [String: String]) throws -> CLI.Result {
        let quoted = command.map { "'\($0.replacingOccurrences(of: "'", with: "'\\''"))'" }.joined(separator: " ")
        return try run(
            ["/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh", "-c", "mount --bind '\(file)' '\(target)' && exec \(quoted)"],
            environment: environment)
    }

    private static func run(_ command: [String], environment: [String: String]? = nil) throws -> CLI.Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        if let environment { process.environment = environment }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return CLI.Result(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self))
    }
}
