import ArgumentParser
import Concord
import Dispatch
import Foundation
import Synchronization

struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Save edits and sync until stopped.",
        discussion: """
            The sync agent: it watches the work tree, saves what changed once edits pause (as save --all \
            does) and syncs; it also syncs every --interval seconds to receive other devices' versions, \
            and at once when another device pushes to a cloud on this machine. In airplane mode, or while \
            the cloud cannot be reached, it keeps saving and retries later. One line per event on standard \
            output: watching, saved, sent, received, new conflict, resolved, offline, back online, failed. \
            SIGINT or SIGTERM stops it after the operation under way (exit 0); a second one stops it at once.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Option(help: ArgumentHelp("Sync every SECONDS when nothing else makes it sync (default 30).", valueName: "SECONDS"))
    var interval: Double = 30

    @Flag(help: "Print one JSON object a line (event, documents, time; detail for offline and failed).")
    var json = false

    func validate() throws {
        guard interval.isFinite, (1...86_400).contains(interval) else {
            throw ValidationError("--interval takes a number of seconds from 1 to 86400")
        }
    }

    struct Line: Encodable {
        var event: String
        var documents: [String]
        var time: Date
        var detail: String?
    }

    func run() async throws {
        try await Output.guarding {
            let container = try global.openContainer()
            let agent = container.watch(SyncAgent.Options(interval: .milliseconds(Int(interval * 1000))))
            let signals = Self.stopOnSignals(agent)
            for await event in agent.events { print(event, container: container) }
            withExtendedLifetime(signals) {}
        }
    }

    /// Signals received so far.
    private static let signalsReceived = Atomic(0)

    /// The first SIGINT or SIGTERM stops the agent after its operation under way; a second one exits at once.
    private static func stopOnSignals(_ agent: SyncAgent) -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                if signalsReceived.add(1, ordering: .relaxed).newValue > 1 { Foundation.exit(0) }
                agent.stop()
            }
            source.resume()
            return source
        }
    }

    private func print(_ event: SyncAgentEvent, container: Container) {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            encoder.dateEncodingStrategy = .iso8601
            let line = Line(event: event.kind.rawValue, documents: event.documents.map(\.value), time: event.time, detail: event.detail)
            if let data = try? encoder.encode(line) { FileHandle.standardOutput.write(data + Data("\n".utf8)) }
            return
        }
        let time = event.time.formatted(Date.ISO8601FormatStyle(timeZone: .current).time(includingFractionalSeconds: false).timeSeparator(.colon))
        let name: String = switch event.kind {
        case .newConflict: "new conflict"
        case .backOnline: "back online"
        case .watching: "watching"
        default: event.kind.rawValue
        }
        var text = "\(time)  \(name.padding(toLength: 13, withPad: " ", startingAt: 0))"
        switch event.kind {
        case .watching: text += "\(container.root) as \(container.device.name), syncing every \(interval.formatted()) s"
        default: text += (event.documents.map(\.value) + [event.detail].compactMap { $0 }).joined(separator: ", ")
        }
        Output.line(text.trimmingCharacters(in: .whitespaces))
        fflush(nil)
    }
}
