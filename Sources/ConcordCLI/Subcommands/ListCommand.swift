import ArgumentParser
import Concord
import Foundation

struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ls",
        abstract: "List documents with their state."
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "A glob on the path or the name (default: every document).")
    var pattern: String?

    @Flag(help: "Print one JSON document.")
    var json = false

    struct Entry: Encodable {
        var document: String
        var state: String
        var package: Bool
        var contentId: String
    }

    func run() async throws {
        try await Output.guarding {
            let documents = try global.openContainer().documents(matching: pattern)
            if json {
                try Output.json(documents.map {
                    Entry(document: $0.path.value, state: $0.state.rawValue, package: $0.isPackage, contentId: $0.contentID)
                })
                return
            }
            for document in documents {
                let state = document.state.rawValue.padding(toLength: 16, withPad: " ", startingAt: 0)
                print("\(state)\(document.path)\(document.isPackage ? "/" : "")")
            }
        }
    }
}
