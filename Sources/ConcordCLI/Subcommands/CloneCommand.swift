import Concord
import FoundationEssentials

struct CloneCommand: Subcommand {
    static let description = CommandDescription(
        name: "clone",
        abstract: "Join a container as a new device.",
        parameters: [
            GlobalOptions.parameter,
            .argument("url", help: "The cloud: a local path or a git URL."),
            .argument("path", help: "The folder of this device's clone."),
            .option("device", value: "device", help: "This device's name, shown with each version it saves (default: the host name)."),
        ]
    )

    let global: GlobalOptions
    let url: String
    let path: String
    let device: String?

    /// Reads the command line.
    init(_ arguments: CommandArguments) throws {
        global = GlobalOptions(arguments)
        url = arguments.argument("url")
        path = arguments.argument("path")
        device = arguments.value("device")
    }

    func run() async throws {
        let container = try await Container.clone(
            from: InitCommand.absoluteCloud(url, global: global), to: global.resolvePath(path), deviceName: device,
            options: .commandLine)
        Output.line("Joined \(container.cloudURL ?? url) as device \(container.device.name) in \(container.root)")
    }
}
