import Concord
import Dispatch
import FoundationEssentials
internal import GitStore
internal import Glibc
import Synchronization

struct WatchCommand: Subcommand {
    static let description = CommandDescription(
        name: "watch",
        abstract: "Save edits and sync until stopped.",
        discussion: """
            The sync agent: it watches the work tree, saves what changed once edits pause (as save --all \
            does) and syncs; it also syncs every --interval seconds to receive other devices' versions, \
            and at once when another device pushes: a cloud on this machine is watched, and a network \
            cloud's main is checked every --peek-interval seconds (a session that reads the references \
            the server advertises, on a connection kept between checks over ssh and https; a sync follows \
            only when main moved). In airplane mode, or while \
            the cloud cannot be reached, it keeps saving and retries later. Conflicts whose rule in \
            .concord/policies ends with 'auto' are resolved at once. One line per event on standard output: \
            watching, saved, sent, received, new conflict (one line for each document, with its versions), \
            auto-resolved, resolved, offline, back online, failed. With --notify, each new conflict is also a \
            desktop notification (notify-send, when installed). SIGINT or SIGTERM stops it after the operation \
            under way (exit 0); a second one stops it at once.
            """,
        parameters: [
            GlobalOptions.parameter,
            .option("interval", value: "SECONDS", help: "Sync every SECONDS when nothing else makes it sync (default 30)."),
            .option("peek-interval", value: "SECONDS", help: "Check a network cloud's main every SECONDS between syncs, syncing when it moved (default 1; 0: never)."),
            .flag("json", help: "Print one JSON object a line (event, documents, time; detail for new conflict, auto-resolved, offline and failed)."),
            .flag("notify", help: "Also tell each new conflict as a desktop notification (through notify-send, when installed)."),
        ]
    )

    let global: GlobalOptions
    let interval: Double
    let peekInterval: Double
    let json: Bool
    let notify: Bool

    /// Reads the command line.
    init(_ arguments: CommandArguments) throws {
        global = GlobalOptions(arguments)
        interval = try arguments.value("interval", as: Double.self) ?? 30
        peekInterval = try arguments.value("peek-interval", as: Double.self) ?? 1
        json = arguments.flag("json")
        notify = arguments.flag("notify")
        try validate()
    }

    private func validate() throws {
        guard interval.isFinite, (1...86_400).contains(interval) else {
            throw UsageError("--interval takes a number of seconds from 1 to 86400")
        }
        guard peekInterval.isFinite, peekInterval == 0 || (0.1...86_400).contains(peekInterval) else {
            throw UsageError("--peek-interval takes 0 (never) or a number of seconds from 0.1 to 86400")
        }
    }

    struct Line: Encodable {
        var event: String
        var documents: [String]
        var time: Date
        var detail: String?
    }

    func run() async throws {
        let container = try global.openContainer()
        let stopper = SignalStop()
        let notifier = notify ? DesktopNotifier(container: container.root) : nil
        if notify && notifier == nil {
            Output.printError("concord: notify-send was not found (libnotify): new conflicts are told here only, not as desktop notifications")
        }
        let agent = try container.watch(
            SyncAgent.Options(
                interval: .milliseconds(Int(interval * 1000)), peekInterval: peekInterval > 0 ? .milliseconds(Int(peekInterval * 1000)) : nil))
        stopper.stop(agent)
        for await event in agent.events {
            print(event, container: container)
            if event.kind == .newConflict, let notifier, let document = event.documents.first {
                notifier.send(summary: "Conflict in \(document)", body: event.detail ?? "\(document) is in conflict")
            }
        }
        withExtendedLifetime(stopper) {}
    }

    /// Stops the agent on the first SIGINT or SIGTERM, after its operation under way; exits at
    /// once on a second one. Listens from its creation, before the agent exists: a signal that
    /// comes first stops the agent as soon as it is given.
    private final class SignalStop: Sendable {
        private struct State {
            var agent: SyncAgent?
            var received = 0
        }

        private let state = Mutex(State())
        private let sources: Mutex<[any DispatchSourceSignal]>

        init() {
            sources = Mutex(
                [SIGINT, SIGTERM].map { number in
                    signal(number, SIG_IGN)
                    return DispatchSource.makeSignalSource(signal: number, queue: .global())
                })
            sources.withLock { sources in
                for source in sources {
                    source.setEventHandler { [weak self] in self?.received() }
                    source.resume()
                }
            }
        }

        /// The agent to stop (now, when a signal came already).
        func stop(_ agent: SyncAgent) {
            let signaled = state.withLock { state in
                state.agent = agent
                return state.received > 0
            }
            if signaled { agent.stop() }
        }

        private func received() {
            let (count, agent) = state.withLock { state in
                state.received += 1
                return (state.received, state.agent)
            }
            if count > 1 { Glibc.exit(0) }
            agent?.stop()
        }
    }

    private func print(_ event: SyncAgentEvent, container: Container) {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            encoder.dateEncodingStrategy = .iso8601
            let line = Line(event: event.kind.rawValue, documents: event.documents.map(\.value), time: event.time, detail: event.detail)
            if let data = try? encoder.encode(line) { Output.standardOutput(data + Data("\n".utf8)) }
            return
        }
        let time = event.time.formatted(Date.ISO8601FormatStyle(timeZone: .current).time(includingFractionalSeconds: false).timeSeparator(.colon))
        let name: String =
            switch event.kind {
            case .newConflict: "new conflict"
            case .autoResolved: "auto-resolved"
            case .backOnline: "back online"
            case .watching: "watching"
            default: event.kind.rawValue
            }
        var text = "\(time)  \(Output.column(name, width: 13))"
        switch event.kind {
        case .watching: text += "\(container.root) as \(container.device.name), syncing every \(interval == interval.rounded() ? String(Int(interval)) : String(interval)) s"
        case .newConflict, .autoResolved:
            let documents = event.documents.map(\.value).joined(separator: ", ")
            text += [documents, event.detail].compactMap { $0 }.joined(separator: ": ")
            if event.kind == .newConflict, let document = event.documents.first {
                text += "; resolve it: concord resolve \(Self.quoted(document.value)) --latest (or --merge)"
            }
        default: text += (event.documents.map(\.value) + [event.detail].compactMap { $0 }).joined(separator: ", ")
        }
        Output.line(text.trimmingSpaces())
        fflush(nil)
    }

    /// A path as a shell word: quoted when it holds anything but letters, digits and `._/-`.
    static func quoted(_ path: String) -> String {
        let plain = path.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil) || "._/-".unicodeScalars.contains($0) }
        return plain && !path.hasPrefix("-") ? path : "'" + path.replacing("'", with: "'\\''") + "'"
    }
}
