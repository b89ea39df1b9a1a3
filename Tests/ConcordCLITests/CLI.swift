import Foundation
import Testing

/// Runs the built `concord` binary as a user would.
struct CLI {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The `concord` executable beside the test bundle.
    static let binary: String = {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = folder.appendingPathComponent("concord").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("concord").path
    }()

    let folder: String
    /// Variables every run adds to the test's environment (HOME for an ssh cloud, and the like).
    var environment: [String: String] = [:]

    init() throws {
        folder = NSTemporaryDirectory() + "concord-cli-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(atPath: folder) }

    /// Runs `concord` with `arguments` in the fixture folder (or in `directory`, below it), with
    /// `input` on stdin (or /dev/null).
    @discardableResult
    func run(_ arguments: [String], input: String? = nil, environment: [String: String] = [:], in directory: String? = nil) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CLI.binary)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory.map { "\(folder)/\($0)" } ?? folder)
        process.environment = ProcessInfo.processInfo.environment.merging(self.environment) { $1 }.merging(environment) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        if let input {
            let pipe = Pipe()
            process.standardInput = pipe
            try process.run()
            pipe.fileHandleForWriting.write(Data(input.utf8))
            try pipe.fileHandleForWriting.close()
        } else {
            process.standardInput = FileHandle.nullDevice
            try process.run()
        }
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// One run of `concord` watched from outside: whether it ended in time, its exit status (nil
    /// when a signal ended it), what it wrote on stderr, and the most memory it held.
    struct MeasuredRun {
        var ended: Bool
        var status: Int32?
        var stderr: String
        var peakBytes: Int
    }

    /// The most memory any command may hold on any input, as docs/ARCHITECTURE.md states: 256 MB plus the
    /// largest document the limits allow (100 MB by default).
    static func memoryBound(largestDocument: Int = 100 << 20) -> Int { (256 << 20) + largestDocument }

    /// Runs `concord` with `arguments` (paths absolute, or `-C` with one), killed if it has not
    /// ended within `seconds` or holds more than `memoryLimit` bytes, and measures its peak memory.
    ///
    /// Through GNU `time`, which forks it from a small process: the kernel folds the memory of
    /// the process a child was forked from into the child's own high-water mark when it starts
    /// a program, so `wait4` on a child of this test runner (hundreds of megabytes) reports the
    /// runner's memory, not the child's.
    func measured(
        _ arguments: [String], environment: [String: String] = [:], within seconds: Double = 60, memoryLimit: Int = CLI.memoryBound()
    ) throws -> MeasuredRun {
        let stem = "\(folder)/run-\(UUID().uuidString.prefix(8))"
        let child = try ChildProcess(
            ["/usr/bin/time", "-f", "%M", "-o", "\(stem).peak", CLI.binary] + arguments, environment: self.environment.merging(environment) { $1 },
            stdout: "/dev/null", stderr: "\(stem).err")
        let status = child.exitStatus(within: seconds, killingAbove: memoryLimit)
        if status == nil { child.kill9() }
        let stderr = (try? String(contentsOfFile: "\(stem).err", encoding: .utf8)) ?? ""
        let peak = (try? String(contentsOfFile: "\(stem).peak", encoding: .utf8))?.split(separator: "\n").last.flatMap { Int($0) } ?? 0
        for suffix in [".err", ".peak"] { try? FileManager.default.removeItem(atPath: stem + suffix) }
        // GNU time exits with its command's status, 128 + the signal when one ended it.
        let exit = status.flatMap { $0 }
        return MeasuredRun(ended: status != nil, status: exit.flatMap { $0 >= 128 ? nil : $0 }, stderr: stderr, peakBytes: peak * 1024)
    }

    /// Runs and requires exit 0.
    @discardableResult
    func ok(_ arguments: [String], input: String? = nil, in directory: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let result = try run(arguments, input: input, in: directory)
        #expect(result.status == 0, "concord \(arguments.joined(separator: " ")): \(result.stderr)", sourceLocation: sourceLocation)
        return result.stdout
    }

    /// Devices `a` and `b` (both made already) diverge on `document`: `a` saves `base`, both
    /// sync, each saves its own content, then `a` and `b` sync in turn.
    func diverge(_ document: String, base: String, a: String, b: String) throws {
        try ok(["-C", "a", "save", document], input: base)
        try ok(["-C", "a", "sync"])
        try ok(["-C", "b", "sync"])
        try ok(["-C", "a", "save", document], input: a)
        try ok(["-C", "b", "save", document], input: b)
        try ok(["-C", "a", "sync"])
        try ok(["-C", "b", "sync"])
    }

    /// Parses a JSON array printed by `--json`.
    func json(_ arguments: [String], in directory: String? = nil) throws -> [[String: Any]] {
        let output = try ok(arguments, in: directory)
        return (try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]]) ?? []
    }

    /// Runs git (for inspection or damage) in a folder below the fixture; returns its trimmed output.
    @discardableResult
    func git(_ arguments: [String], in path: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/git")
        process.arguments = ["-C", "\(folder)/\(path)"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// What `git fsck --no-dangling` reports for the repository of `device` (stdout and stderr,
    /// and its exit status when not 0); empty when it is clean.
    func fsck(_ device: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/git")
        process.arguments = ["-C", "\(folder)/\(device)", "fsck", "--no-dangling", "--no-progress"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let report = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return process.terminationStatus == 0 ? report : "exit \(process.terminationStatus): \(report)"
    }

    /// The tree id of a device's main.
    func tree(_ device: String) throws -> String {
        try git(["rev-parse", "main^{tree}"], in: device)
    }
}
