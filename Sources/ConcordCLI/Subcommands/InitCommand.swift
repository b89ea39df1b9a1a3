import Concord
import FoundationEssentials

struct InitCommand: Subcommand {
    static let description = CommandDescription(
        name: "init",
        abstract: "Create a container, and its cloud when the remote is a new local path.",
        discussion: "Each --package glob (for example '*.note') makes matching folders package documents, versioned as one unit.",
        parameters: [
            GlobalOptions.parameter,
            .argument("path", help: "The folder of the new container (default: the current folder).", optional: true),
            .option("device", value: "device", help: "This device's name, shown with each version it saves (default: the host name)."),
            .option("remote", value: "URL", help: "The cloud: a local path (a bare repository is made when absent) or a git URL."),
            .option("package", value: "PATTERN", help: "A glob naming package folders; repeatable.", repeatable: true),
        ]
    )

    let global: GlobalOptions
    let path: String?
    let device: String?
    let remote: String?
    let packages: [String]

    /// Reads the command line.
    init(_ arguments: CommandArguments) throws {
        global = GlobalOptions(arguments)
        path = arguments.value("path")
        device = arguments.value("device")
        remote = arguments.value("remote")
        packages = arguments.values("package")
    }

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
