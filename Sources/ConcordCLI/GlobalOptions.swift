import Concord
import FoundationEssentials
internal import Glibc
import Logging

/// Options every subcommand takes.
struct GlobalOptions {
    /// `-C PATH`, which every subcommand lists first.
    static let parameter = Parameter.option("C", value: "PATH", help: "Run as if concord was started in PATH.")

    /// The folder `-C` gives; nil when not given.
    var directory: String?

    /// The options `arguments` give.
    init(_ arguments: CommandArguments) {
        directory = arguments.value("C")
    }

    /// The folder the command runs in.
    var workingDirectory: String { Self.workingDirectory(given: directory) }

    /// The folder a command runs in when `-C` gives `directory` (nil: not given).
    static func workingDirectory(given directory: String?) -> String {
        let base = FileManager.default.currentDirectoryPath
        guard let directory else { return base }
        return directory.hasPrefix("/") ? directory : "\(base)/\(directory)"
    }

    /// The container whose work tree holds `folder`: the folder itself, or the nearest above
    /// it that holds a `.git`; nil when there is none.
    static func containerRoot(from folder: String) -> String? {
        var components = standardizedComponents(folder)
        while true {
            let candidate = "/" + components.joined(separator: "/")
            if access(components.isEmpty ? "/.git" : "\(candidate)/.git", F_OK) == 0 { return candidate }
            if components.isEmpty { return nil }
            components.removeLast()
        }
    }

    /// The components of the absolute path `path` without its `.` and `..` (each taking out
    /// the one before it) and empty ones, as `URL.standardizedFileURL` reads them, without its
    /// cost (420,000 instructions at each command's start).
    private static func standardizedComponents(_ path: String) -> [String] {
        var components: [String] = []
        for component in path.split(separator: "/") where component != "." {
            if component == ".." {
                _ = components.popLast()
            } else {
                components.append(String(component))
            }
        }
        return components
    }

    /// Opens the container at the working directory or the nearest folder above it that is one.
    func openContainer(options: Container.Options = .commandLine) throws -> Container {
        guard let root = Self.containerRoot(from: workingDirectory) else {
            throw ConcordError.notAContainer(URL(fileURLWithPath: workingDirectory).standardizedFileURL.path)
        }
        return try Container.open(at: root, options: options)
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
        var options = Container.Options(now: ProcessEnvironment.now, lockTimeout: ProcessEnvironment.lockTimeout, deviceID: ProcessEnvironment.deviceID)
        options.logger = Logger(label: "concord") { _ in WarningLines() }
        return options
    }
}
