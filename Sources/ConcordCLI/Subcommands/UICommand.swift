import Concord
import FoundationEssentials
internal import Glibc

struct UICommand: Subcommand {
    static let description = CommandDescription(
        name: "ui",
        abstract: "Serve the resolver page for this container on 127.0.0.1.",
        discussion: """
            Prints the page's address, which carries a random token every request must present, and \
            opens it with xdg-open when there is a desktop (unless --no-open). The page lists the \
            documents, conflicts first; shows each version in contention beside the versions' common \
            ancestor with the changed lines marked, and each merge policy's preview; and resolves by \
            keeping a version, merging with a policy, or saving an edited result. It answers only to \
            127.0.0.1 and localhost, refuses writes from other pages, and runs until Ctrl-C. The server \
            is the separate program concord-ui, installed beside concord.
            """,
        parameters: [
            GlobalOptions.parameter,
            .option("port", value: "N", help: "The port to listen on (default: one the system picks)."),
            .flag("no-open", help: "Print the address without opening a browser."),
        ]
    )

    let global: GlobalOptions
    let port: Int?
    let noOpen: Bool

    /// Reads the command line.
    init(_ arguments: CommandArguments) throws {
        global = GlobalOptions(arguments)
        port = try arguments.value("port", as: Int.self)
        noOpen = arguments.flag("no-open")
        try validate()
    }

    private func validate() throws {
        if let port, !(1...65535).contains(port) { throw UsageError("--port takes a number from 1 to 65535") }
    }

    func run() async throws {
        guard let root = GlobalOptions.containerRoot(from: global.workingDirectory) else {
            throw ConcordError.notAContainer(URL(fileURLWithPath: global.workingDirectory).standardizedFileURL.path)
        }
        let server = try Self.serverPath()
        var arguments = [server, root, "--port", String(port ?? 0)]
        if !noOpen { arguments.append("--open") }
        // The server takes this process's place: its PID is the one that started, and Ctrl-C stops it.
        let pointers = arguments.map { strdup($0) } + [nil]
        execv(server, pointers)
        throw ConcordError.io(server, reason: "cannot be started: \(String(cString: strerror(errno)))")
    }

    /// `concord-ui`, beside this executable.
    static func serverPath() throws -> String {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let path = URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent("concord-ui").path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw ConcordError.failed(
                "the resolver page's server is not installed: \(path) is missing (build it with swift build --product concord-ui, and copy it beside concord)")
        }
        return path
    }
}
