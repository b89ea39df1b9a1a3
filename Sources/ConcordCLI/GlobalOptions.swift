import ArgumentParser
import Concord
import Foundation
import Logging

/// Options every subcommand takes.
struct GlobalOptions: ParsableArguments {
    @Option(name: .customShort("C"), help: ArgumentHelp("Run as if concord was started in PATH.", valueName: "PATH"))
    var directory: String?

    /// The folder the command runs in.
    var workingDirectory: String {
        let base = FileManager.default.currentDirectoryPath
        guard let directory else { return base }
        return directory.hasPrefix("/") ? directory : "\(base)/\(directory)"
    }

    /// Opens the container at the working directory or the nearest folder above it that is one.
    func openContainer(options: Container.Options = .commandLine) throws -> Container {
        var candidate = URL(fileURLWithPath: workingDirectory).standardizedFileURL.path
        let start = candidate
        while true {
            if FileManager.default.fileExists(atPath: "\(candidate)/.git") {
                return try Container.open(at: candidate, options: options)
            }
            let parent = (candidate as NSString).deletingLastPathComponent
            if parent == candidate || parent.isEmpty { throw ConcordError.notAContainer(start) }
            candidate = parent
        }
    }

    /// A path given on the command line, relative to the working directory.
    func resolvePath(_ path: String) -> String {
        path.hasPrefix("/") ? path : "\(workingDirectory)/\(path)"
    }
}

extension Container.Options {
    /// The options every command opens or makes a container with: the clock and the lock's wait
    /// from the environment, warnings printed one line each.
    static var commandLine: Container.Options {
        var options = Container.Options(now: Clock.now, lockTimeout: Clock.lockTimeout, deviceID: Clock.deviceID)
        options.logger = Logger(label: "concord") { _ in WarningLines() }
        return options
    }
}

/// The command line's view of time: the system clock, shifted by `CONCORD_CLOCK_OFFSET`
/// seconds when set (to simulate a device whose clock runs ahead or behind).
enum Clock {
    static let offset: TimeInterval = number("CONCORD_CLOCK_OFFSET", within: -3_153_600_000...3_153_600_000) ?? 0

    static let lockTimeout: Double = number("CONCORD_LOCK_TIMEOUT", within: 0...86_400) ?? 5

    @Sendable static func now() -> Date { Date().addingTimeInterval(offset) }

    /// `CONCORD_DEVICE_ID`: the id `init` and `clone` give the new device (for reproducible simulations).
    static let deviceID: String? = ProcessInfo.processInfo.environment["CONCORD_DEVICE_ID"].flatMap { $0.isEmpty ? nil : $0 }

    /// Why a variable of the environment that sets the clock or the lock's wait is unusable; nil when all are.
    static var environmentProblem: String? {
        for (name, range) in [("CONCORD_CLOCK_OFFSET", "seconds within 100 years"), ("CONCORD_LOCK_TIMEOUT", "seconds from 0 to 86400")] {
            if let text = ProcessInfo.processInfo.environment[name], number(name, within: name == "CONCORD_CLOCK_OFFSET" ? -3_153_600_000...3_153_600_000 : 0...86_400) == nil {
                return "\(name)=\(text) is not a number of \(range)"
            }
        }
        return nil
    }

    /// The number a variable of the environment holds, when it is finite and within `range`.
    private static func number(_ name: String, within range: ClosedRange<Double>) -> Double? {
        guard let value = ProcessInfo.processInfo.environment[name].flatMap(Double.init), value.isFinite, range.contains(value) else { return nil }
        return value
    }
}
