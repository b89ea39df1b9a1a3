import ArgumentParser
import Concord
import Foundation

struct CloneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clone",
        abstract: "Join a container as a new device."
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The cloud: a local path or a git URL.")
    var url: String

    @Argument(help: "The folder of this device's clone.")
    var path: String

    @Option(help: "This device's name, shown with each version it saves (default: the host name).")
    var device: String?

    func run() async throws {
        let container = try await Container.clone(
            from: InitCommand.absoluteCloud(url, global: global), to: global.resolvePath(path), deviceName: device,
            options: .commandLine)
        Output.line("Joined \(container.cloudURL ?? url) as device \(container.device.name) in \(container.root)")
    }
}
