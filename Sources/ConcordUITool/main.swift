import Concord
import ConcordUI
import Foundation

/// `concord-ui ROOT [--port N] [--open]`: what `concord ui` runs once it found the container.
struct Arguments {
    var root: String?
    var port = 0
    var open = false

    init(_ arguments: [String]) {
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--port":
                guard let value = rest.popFirst().flatMap(Int.init), (0...65535).contains(value) else { Self.usage("--port needs a number from 0 to 65535") }
                port = value
            case "--open": open = true
            case _ where argument.hasPrefix("-"): Self.usage("unknown option \(argument)")
            default: root = argument
            }
        }
    }

    static func usage(_ problem: String) -> Never {
        FileHandle.standardError.write(Data("concord-ui: \(problem) (usage: concord-ui ROOT [--port N] [--open]; concord ui starts it)\n".utf8))
        exit(2)
    }
}

/// Opens the container at `root` and serves it until SIGINT or SIGTERM.
func serve(root: String, port: Int, opening: Bool) async throws {
    let container = try await Container.open(at: root)
    let server = ResolverServer(container: container)
    try await server.run(port: port) { address in
        FileHandle.standardOutput.write(Data("Concord resolver for \(container.device.name) at \(address)\nStop it with Ctrl-C.\n".utf8))
        if opening { Browser.open(address) }
    }
}

let arguments = Arguments(Array(CommandLine.arguments.dropFirst()))
guard let root = arguments.root else { Arguments.usage("give the container's folder") }
do {
    try await serve(root: root, port: arguments.port, opening: arguments.open)
} catch {
    FileHandle.standardError.write(Data("concord-ui: \(error)\n".utf8))
    exit(1)
}
