import ArgumentParser
import Concord
import Foundation

struct InitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create a container, and its cloud when the remote is a new local path.",
        discussion: "Each --package glob (for example '*.note') makes matching folders package documents, versioned as one unit."
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The folder of the new container (default: the current folder).")
    var path: String?

    @Option(help: "This device's name, shown with each version it saves (default: the host name).")
    var device: String?

    @Option(help: ArgumentHelp("The cloud: a local path (a bare repository is made when absent) or a git URL.", valueName: "URL"))
    var remote: String?

    @Option(name: .customLong("package"), help: ArgumentHelp("A glob naming package folders; repeatable.", valueName: "PATTERN"))
    var packages: [String] = []

    func run() async throws {
        let target = global.resolvePath(path ?? ".")
        let remote = remote.map { Self.absoluteCloud($0, global: global) }
        let container = try await Container.create(
            at: target, deviceName: device, cloud: remote, packagePatterns: packages,
            options: .commandLine)
        var line = "Created container \(container.root) for device \(container.device.name)"
        if let cloud = container.cloudURL { line += ", cloud \(cloud)" }
        Output.line(line)
    }

    /// A relative local path is taken relative to the working directory, so the clone's config names it fully.
    static func absoluteCloud(_ url: String, global: GlobalOptions) -> String {
        if url.contains("://") || url.hasPrefix("/") { return url }
        if let colon = url.firstIndex(of: ":"), !url[..<colon].contains("/") { return url }
        return URL(fileURLWithPath: global.resolvePath(url)).standardizedFileURL.path
    }
}
