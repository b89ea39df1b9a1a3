import Concord
import FoundationEssentials

struct AirplaneCommand: Subcommand {
    static let description = CommandDescription(
        name: "airplane",
        abstract: "Turn airplane mode on or off, or show it.",
        discussion: "In airplane mode this device saves as usual but sync refuses the network.",
        parameters: [
            GlobalOptions.parameter,
            .argument("mode", help: "on, off or status.", optional: true),
        ]
    )

    enum Mode: String, CaseIterable {
        case on, off, status
    }

    let global: GlobalOptions
    let mode: Mode

    /// Reads the command line.
    init(_ arguments: CommandArguments) throws {
        global = GlobalOptions(arguments)
        mode = try arguments.value("mode", as: Mode.self) ?? .status
    }

    func run() async throws {
        let container = try global.openContainer()
        switch mode {
        case .on:
            try await container.setAirplaneMode(true)
            Output.line("Airplane mode on for \(container.device.name): sync stays offline, saving goes on")
        case .off:
            try await container.setAirplaneMode(false)
            Output.line("Airplane mode off for \(container.device.name)")
        case .status:
            let waiting = try await container.waitingVersionCount()
            Output.line(
                "Airplane mode \(container.isAirplaneModeOn ? "on" : "off") for \(container.device.name); \(waiting) local version\(waiting == 1 ? "" : "s") waiting to go up")
        }
    }
}
