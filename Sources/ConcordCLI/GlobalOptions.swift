import ArgumentParser
import Concord
import Foundation

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
    func openContainer() throws -> Container {
        let options = Container.Options(now: Clock.now, lockTimeout: Clock.lockTimeout)
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

/// The command line's view of time: the system clock, shifted by `CONCORD_CLOCK_OFFSET`
/// seconds when set (to simulate a device whose clock runs ahead or behind).
enum Clock {
    static let offset: TimeInterval = {
        ProcessInfo.processInfo.environment["CONCORD_CLOCK_OFFSET"].flatMap(TimeInterval.init) ?? 0
    }()

    static let lockTimeout: Double = {
        ProcessInfo.processInfo.environment["CONCORD_LOCK_TIMEOUT"].flatMap(Double.init) ?? 5
    }()

    @Sendable static func now() -> Date { Date().addingTimeInterval(offset) }

    /// `CONCORD_DEVICE_ID`: the id `init` and `clone` give the new device (for reproducible simulations).
    static let deviceID: String? = ProcessInfo.processInfo.environment["CONCORD_DEVICE_ID"].flatMap { $0.isEmpty ? nil : $0 }
}
