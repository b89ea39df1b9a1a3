import ArgumentParser
import Concord
import Foundation

struct GCCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gc",
        abstract: "Repack this device's objects and remove the ones nothing reaches.",
        discussion: """
            Versions are never removed: every version stays reachable from main. Concord keeps the \
            number of packs small on its own after each write; gc does the whole job at once, and \
            merges the small packs of a cloud on a local path.
            """
    )

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let container = try global.openContainer()
        let result = try container.compact()
        let bytes = { (count: Int) in ByteCountFormatter.string(fromByteCount: Int64(count), countStyle: .file) }
        Output.line(
            "Repacked \(result.packsBefore) pack\(result.packsBefore == 1 ? "" : "s") and \(result.looseObjectsPacked) loose object\(result.looseObjectsPacked == 1 ? "" : "s") into \(result.packsAfter); removed \(result.objectsPruned) unreachable object\(result.objectsPruned == 1 ? "" : "s"); objects \(bytes(result.bytesBefore)) -> \(bytes(result.bytesAfter))"
        )
    }
}
