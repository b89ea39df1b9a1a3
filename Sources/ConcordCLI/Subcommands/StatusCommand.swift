import Concord
import FoundationEssentials

struct StatusCommand: Subcommand {
    static let description = CommandDescription(
        name: "status",
        abstract: "Show conflicts, versions waiting to go up, skipped files, the last sync and the agent.",
        discussion: """
            Each document in conflict with its versions in contention (device, date); the documents with \
            versions saved here that the cloud has not received; the files saves leave out, and why; when \
            the last sync ended and how (its error, when it failed); whether a sync agent (concord watch) \
            runs. Reads only: it never waits for a writer.
            """,
        parameters: [
            GlobalOptions.parameter,
            .json,
        ]
    )

    let global: GlobalOptions
    let json: Bool

    /// Reads the command line.
    init(_ arguments: CommandArguments) throws {
        global = GlobalOptions(arguments)
        json = arguments.flag("json")
    }

    struct ConflictJSON: Encodable {
        var document: String
        var versions: Int
        var contention: [VersionJSON]
    }

    struct WaitingJSON: Encodable {
        var document: String
        var versions: Int
    }

    struct SkippedJSON: Encodable {
        var path: String
        var reason: String
        var detail: String
    }

    struct LastSyncJSON: Encodable {
        var time: Date
        var outcome: String
        var error: String?

        private enum CodingKeys: String, CodingKey { case time, outcome, error }

        /// Every key, `error` as null after a sync that succeeded.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(time, forKey: .time)
            try container.encode(outcome, forKey: .outcome)
            try container.encode(error, forKey: .error)
        }
    }

    struct AgentJSON: Encodable {
        var running: Bool
        var pid: Int?

        private enum CodingKeys: String, CodingKey { case running, pid }

        /// Every key, `pid` as null when no agent runs.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(running, forKey: .running)
            try container.encode(pid, forKey: .pid)
        }
    }

    struct Report: Encodable {
        var conflicts: [ConflictJSON]
        var waiting: [WaitingJSON]
        var waitingVersions: Int
        var skipped: [SkippedJSON]
        var lastSync: LastSyncJSON?
        var agent: AgentJSON
        var airplane: Bool

        private enum CodingKeys: String, CodingKey {
            case conflicts, waiting, waitingVersions, skipped, lastSync, agent, airplane
        }

        /// Every key, `lastSync` as null when the device never synced.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(conflicts, forKey: .conflicts)
            try container.encode(waiting, forKey: .waiting)
            try container.encode(waitingVersions, forKey: .waitingVersions)
            try container.encode(skipped, forKey: .skipped)
            try container.encode(lastSync, forKey: .lastSync)
            try container.encode(agent, forKey: .agent)
            try container.encode(airplane, forKey: .airplane)
        }
    }

    func run() async throws {
        let status = try await global.openContainer().status()
        if json {
            try Output.json(
                Report(
                    conflicts: status.conflicts.map { conflict in
                        ConflictJSON(
                            document: conflict.document.value, versions: conflict.versions.count,
                            contention: conflict.versions.map { VersionJSON($0, of: conflict.document) })
                    },
                    waiting: status.waiting.map { WaitingJSON(document: $0.document.value, versions: $0.versions) },
                    waitingVersions: status.waitingVersions,
                    skipped: status.skipped.map { SkippedJSON(path: $0.path, reason: $0.reason.rawValue, detail: $0.detail) },
                    lastSync: status.lastSync.map { LastSyncJSON(time: $0.time, outcome: $0.outcome, error: $0.error) },
                    agent: AgentJSON(running: status.agent.isRunning, pid: status.agent.processID), airplane: status.isAirplaneModeOn))
            return
        }
        printText(status)
    }

    private func printText(_ status: ContainerStatus) {
        Output.line("In conflict: " + (status.conflicts.isEmpty ? "nothing" : count(status.conflicts.count, "document")))
        for conflict in status.conflicts {
            let versions = conflict.versions.map { version in
                "\(version.deviceName) \(Output.date(version.modified))\(version.isDeleted ? " deleted" : "")\(version.isCurrent ? " (current)" : "")"
            }
            Output.line("  \(conflict.document)  \(count(conflict.versions.count, "version")): \(versions.joined(separator: ", "))")
        }
        if !status.conflicts.isEmpty { Output.line("  resolve with: concord resolve DOC --latest | --merge | --keep ID") }
        let documents = count(status.waiting.count, "document")
        Output.line(
            "Waiting to go up: "
                + (status.waitingVersions == 0 ? "nothing" : "\(count(status.waitingVersions, "version")) (\(documents))"))
        for waiting in status.waiting { Output.line("  \(waiting.document)  \(count(waiting.versions, "version"))") }
        Output.line("Not saved: " + (status.skipped.isEmpty ? "nothing" : count(status.skipped.count, "file")))
        for skipped in status.skipped { Output.line("  \(skipped.path)  \(skipped.detail)") }
        if let last = status.lastSync {
            Output.line("Last sync: \(Output.date(last.time)), \(last.outcome)\(last.error.map { ": \($0)" } ?? "")")
        } else {
            Output.line("Last sync: never")
        }
        if status.isAirplaneModeOn { Output.line("Airplane mode: on (concord airplane off)") }
        if status.agent.isRunning {
            Output.line("Agent: running\(status.agent.processID.map { " (pid \($0))" } ?? "")")
        } else {
            Output.line("Agent: not running (concord watch starts one)")
        }
    }

    private func count(_ number: Int, _ noun: String) -> String {
        "\(number) \(noun)\(number == 1 ? "" : "s")"
    }
}
