import Concord
import FoundationEssentials

struct LimitsCommand: Subcommand {
    static let description = CommandDescription(
        name: "limits",
        abstract: "Show or set the container's file-size limit (.concord/limits).",
        discussion: """
            The largest file (a document, or a file of a package) the container takes; 100 MB unless set. It \
            travels with the container: every device saves files up to it and accepts them from the cloud, a \
            new device's clone included. A device takes up to 512 MB on the container's word alone; past that \
            (or to hold a device to less), its own setting decides: CONCORD_MAX_OBJECT_SIZE, or \
            'git config concord.maxObjectSize SIZE' in the container. Sizes take k, m or g (powers of 1024).
            """,
        parameters: [
            GlobalOptions.parameter,
            .option("file-size", value: "SIZE", help: "Set the largest file the container takes, for every device."),
            .flag("json", help: "Print the limits as one JSON object (containerFileSize, fileSize, fixedByDevice)."),
        ]
    )

    let global: GlobalOptions
    let fileSize: String?
    let json: Bool

    /// Reads the command line.
    init(_ arguments: CommandArguments) throws {
        global = GlobalOptions(arguments)
        fileSize = arguments.value("file-size")
        json = arguments.flag("json")
        try validate()
    }

    struct Limits: Encodable {
        var containerFileSize: Int
        var fileSize: Int
        var fixedByDevice: Bool
    }

    private func validate() throws {
        if json && fileSize != nil { throw UsageError("--json shows the limits; give it without --file-size") }
    }

    func run() async throws {
        let container = try global.openContainer()
        if let fileSize {
            guard let bytes = SizeLimits.bytes(from: fileSize) else {
                throw UsageError("invalid size '\(fileSize)': give bytes, or a number with k, m or g (for example 300m)")
            }
            try await container.setFileSizeLimit(bytes)
            Output.line("The container takes files up to \(SizeLimits.text(bytes)) (every device, once it syncs)")
            return
        }
        let limits = try await container.sizeLimits()
        if json {
            try Output.json(Limits(containerFileSize: limits.containerFileSize, fileSize: limits.fileSize, fixedByDevice: limits.fixedByDevice))
            return
        }
        Output.line("file-size \(SizeLimits.text(limits.containerFileSize))   the largest file the container takes")
        if limits.fixedByDevice {
            Output.line("this device: \(SizeLimits.text(limits.fileSize)), its own setting (CONCORD_MAX_OBJECT_SIZE or concord.maxObjectSize)")
        } else if limits.fileSize < limits.containerFileSize {
            Output.line("this device: \(SizeLimits.text(limits.fileSize)), the most it takes on the container's word (concord.maxObjectSize goes past it)")
        }
    }
}
