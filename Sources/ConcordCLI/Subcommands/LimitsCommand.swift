import ArgumentParser
import Concord
import Foundation

struct LimitsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "limits",
        abstract: "Show or set the container's file-size limit (.concord/limits).",
        discussion: """
            The largest file (a document, or a file of a package) the container takes; 100 MB unless set. It \
            travels with the container: every device saves files up to it and accepts them from the cloud, a \
            new device's clone included. A device takes up to 512 MB on the container's word alone; past that \
            (or to hold a device to less), its own setting decides: CONCORD_MAX_OBJECT_SIZE, or \
            'git config concord.maxObjectSize SIZE' in the container. Sizes take k, m or g (powers of 1024).
            """
    )

    @OptionGroup var global: GlobalOptions

    @Option(name: .customLong("file-size"), help: ArgumentHelp("Set the largest file the container takes, for every device.", valueName: "SIZE"))
    var fileSize: String?

    @Flag(help: "Print the limits as one JSON object (containerFileSize, fileSize, fixedByDevice).")
    var json = false

    struct Limits: Encodable {
        var containerFileSize: Int
        var fileSize: Int
        var fixedByDevice: Bool
    }

    func validate() throws {
        if json && fileSize != nil { throw ValidationError("--json shows the limits; give it without --file-size") }
    }

    func run() async throws {
        let container = try global.openContainer()
        if let fileSize {
            guard let bytes = SizeLimits.bytes(from: fileSize) else {
                throw ValidationError("invalid size '\(fileSize)': give bytes, or a number with k, m or g (for example 300m)")
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
