import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A `concord watch --json` process on one device of a ``CLI`` fixture, its events read from a
/// file. Stop every agent a test starts (``stop(signal:)`` or ``kill9()``), failures included:
/// `defer { agent.stop() }` right after starting it.
final class WatchAgent {
    let device: String
    let output: String
    private let errorOutput: String
    private let process: ChildProcess
    private var running = true

    /// Starts `concord -C DEVICE watch --json` (without `--json` when `json` is false) on a device
    /// of the fixture; it writes to its own `DEVICE.agent.*.jsonl`. The periodic sync is an hour
    /// apart unless `arguments` say otherwise, so that what a test sees comes from watching, not
    /// from the clock. The agent runs with the fixture's environment and `environment` added.
    init(_ cli: CLI, device: String, json: Bool = true, arguments: [String] = ["--interval", "3600"], environment: [String: String] = [:]) throws {
        self.device = device
        output = "\(cli.folder)/\(device).agent.\(UUID().uuidString.prefix(8)).jsonl"
        errorOutput = output.replacingOccurrences(of: ".jsonl", with: ".err")
        process = try ChildProcess(
            [CLI.binary, "-C", "\(cli.folder)/\(device)", "watch"] + (json ? ["--json"] : []) + arguments,
            environment: cli.environment.merging(environment) { $1 }, stdout: output, stderr: errorOutput)
    }

    /// The agent's process id.
    var pid: pid_t { process.pid }

    /// The lines printed so far (the text output, without `--json`).
    var lines: [String] {
        ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// The events printed so far (a line cut short by a kill is left out).
    var events: [[String: Any]] {
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
    }

    /// The documents of every event of `kind` printed so far.
    func documents(_ kind: String) -> [String] {
        events.filter { $0["event"] as? String == kind }.flatMap { $0["documents"] as? [String] ?? [] }
    }

    /// Waits (up to `seconds`) until the agent has printed an event of `kind` naming `document`
    /// (any event of `kind` when nil).
    @discardableResult
    func waitFor(
        _ kind: String, _ document: String? = nil, seconds: Double = 90,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Bool {
        let seen = eventually(seconds) {
            events.contains { $0["event"] as? String == kind && (document == nil || ($0["documents"] as? [String] ?? []).contains(document!)) }
        }
        #expect(seen, "\(device)'s agent never said \(kind) \(document ?? ""): \(events)", sourceLocation: sourceLocation)
        return seen
    }

    /// Waits up to `seconds` for the agent to exit by itself; its exit status, nil when it still runs.
    func exitStatus(within seconds: Double = 60) -> Int32? {
        let code = process.exitStatus(within: seconds)
        if code != nil { running = false }
        return code
    }

    /// What the agent printed on standard error.
    var errors: String { (try? String(contentsOfFile: errorOutput, encoding: .utf8)) ?? "" }

    /// Stops the agent with `signal` (SIGKILL after a generous wait); returns its exit status,
    /// nil when a signal ended it or it was stopped already.
    @discardableResult
    func stop(signal: Int32 = SIGTERM) -> Int32? {
        guard running else { return nil }
        running = false
        return process.stop(signal: signal, within: 60)
    }

    /// Kills the agent at once.
    func kill9() {
        guard running else { return }
        running = false
        process.kill9()
    }

    deinit {
        if running { process.kill9() }
    }
}

/// Checks `condition` every tenth of a second until it holds or `seconds` pass.
func eventually(_ seconds: Double = 90, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while true {
        if try condition() { return true }
        if Date() >= deadline { return false }
        usleep(100_000)
    }
}

extension CLI {
    /// The text of a file below the fixture folder; nil when it is missing.
    func file(_ path: String) -> String? {
        try? String(contentsOfFile: "\(folder)/\(path)", encoding: .utf8)
    }

    /// Writes a file below the fixture folder (folders made as needed), as an editor writing in place would.
    func write(_ path: String, _ text: String) throws {
        let url = URL(fileURLWithPath: "\(folder)/\(path)")
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    /// Waits until the file at `path` holds `text`; records a failure otherwise.
    @discardableResult
    func waitForFile(_ path: String, _ text: String, seconds: Double = 90, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let arrived = eventually(seconds) { file(path) == text }
        #expect(arrived, "\(path) holds \(file(path).debugDescription), not \(text.debugDescription)", sourceLocation: sourceLocation)
        return arrived
    }
}
