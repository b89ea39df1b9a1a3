import Concord
import FoundationEssentials
internal import GitStore

struct GCCommand: Subcommand {
    static let description = CommandDescription(
        name: "gc",
        abstract: "Repack this device's objects and remove the ones nothing reaches.",
        discussion: """
            Versions are never removed: every version stays reachable from main. gc rewrites every \
            object of the container into one pack, so it may write as much as the container holds, \
            and merges the small packs of a cloud on a local path. Without it, Concord keeps the \
            number of packs small on its own after each write, rewriting only packs that are small \
            beside what is new, never the pack of a large file.
            """,
        parameters: [
            GlobalOptions.parameter
        ]
    )

    let global: GlobalOptions

    /// Reads the command line.
    init(_ arguments: CommandArguments) throws {
        global = GlobalOptions(arguments)
    }

    func run() async throws {
        let container = try global.openContainer()
        Output.line("Rewriting every object into one pack (about as much as the container holds)...")
        let result = try await container.compact()
        let bytes = { (count: Int) in ByteCount.text(count, style: .decimal) }
        Output.line(
            "Repacked \(result.packsBefore) pack\(result.packsBefore == 1 ? "" : "s") and \(result.looseObjectsPacked) loose object\(result.looseObjectsPacked == 1 ? "" : "s") into \(result.packsAfter); removed \(result.objectsPruned) unreachable object\(result.objectsPruned == 1 ? "" : "s"); objects \(bytes(result.bytesBefore)) -> \(bytes(result.bytesAfter))"
        )
    }
}
