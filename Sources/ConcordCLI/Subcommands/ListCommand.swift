import ArgumentParser
import Concord
import Foundation

struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ls",
        abstract: "List documents with their state.",
        discussion:
            "With --watch, keep running and print each change (added, changed, state changed, removed) as it happens, in this process or another, until stopped; with --json, one JSON object a line."
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "A glob on the path or the name (default: every document).")
    var pattern: String?

    @Flag(help: "Print one JSON document (with --watch, one JSON object a line).")
    var json = false

    @Flag(help: "Keep running and print every change until stopped.")
    var watch = false

    struct Entry: Encodable {
        var document: String
        var state: String
        var package: Bool
        var contentId: String
    }

    struct Event: Encodable {
        var event: String
        var document: String
        var state: String?
        var package: Bool?
        var contentId: String?
    }

    func run() async throws {
        if watch { return try await watchChanges() }
        let documents = try global.openContainer().documents(matching: pattern)
        if json {
            try Output.json(
                documents.map {
                    Entry(document: $0.path.value, state: $0.state.rawValue, package: $0.isPackage, contentId: $0.contentID)
                })
            return
        }
        for document in documents {
            let state = document.state.rawValue.padding(toLength: 16, withPad: " ", startingAt: 0)
            Output.line("\(state)\(document.path)\(document.isPackage ? "/" : "")")
        }
    }

    private func watchChanges() async throws {
        let container = try global.openContainer()
        for await event in container.query(matching: pattern) {
            switch event {
            case let .gathered(documents):
                for document in documents { emit("gathered", document.path, document) }
            case let .added(info): emit("added", info.path, info)
            case let .changed(info): emit("changed", info.path, info)
            case let .stateChanged(info): emit("stateChanged", info.path, info)
            case let .removed(path): emit("removed", path, nil)
            }
        }
    }

    private func emit(_ event: String, _ path: DocumentPath, _ info: DocumentInfo?) {
        if json {
            let value = Event(event: event, document: path.value, state: info?.state.rawValue, package: info?.isPackage, contentId: info?.contentID)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            if let data = try? encoder.encode(value) { FileHandle.standardOutput.write(data + Data("\n".utf8)) }
        } else {
            let line = "\(event.padding(toLength: 14, withPad: " ", startingAt: 0))\((info?.state.rawValue ?? "-").padding(toLength: 16, withPad: " ", startingAt: 0))\(path)\n"
            FileHandle.standardOutput.write(Data(line.utf8))
        }
    }
}
