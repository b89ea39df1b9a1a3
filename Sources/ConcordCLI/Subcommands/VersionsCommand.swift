import Concord
import ConcordMerge
import FoundationEssentials
import GitStore

struct VersionsCommand: Subcommand {
    static let description = CommandDescription(
        name: "versions",
        abstract: "List a document's current and unresolved versions.",
        discussion:
            "With --all, every version the document ever had, newest first. Each version shows its device, wall time, clock, size and a short comparison with the current version.",
        parameters: [
            GlobalOptions.parameter,
            .document,
            .flag("all", help: "List every version the document ever had."),
            .json,
        ]
    )

    let global: GlobalOptions
    let document: DocumentPath
    let all: Bool
    let json: Bool

    /// Reads the command line.
    init(_ arguments: CommandArguments) throws {
        global = GlobalOptions(arguments)
        document = try arguments.document("document")
        all = arguments.flag("all")
        json = arguments.flag("json")
    }

    func run() async throws {
        let container = try global.openContainer()
        let versions = await all ? try container.versions(of: document) : try container.unresolvedVersions(of: document)
        if json {
            try Output.json(versions.map { VersionJSON($0, of: document) })
            return
        }
        // A document deleted and in no conflict has no current content to compare with.
        let current = try? await container.content(of: document)
        let currentIsFolder = versions.first { $0.isCurrent }?.isFolder == true
        for version in versions {
            let role = version.isCurrent ? "current " : version.isConflict ? "conflict" : "        "
            var line = "\(role)  \(version.id.prefix(7))  \(version.deviceName)  \(Output.date(version.modified))  clock \(version.clock)"
            if version.isFolder {
                line += "  a folder of documents"
            } else if version.isDeleted {
                line += "  deleted"
            } else {
                line += "  \(version.size) bytes"
                if !version.isCurrent, currentIsFolder {
                    line += "  current is a folder"
                } else if !version.isCurrent, let summary = try await Self.summary(try container.content(of: document, version: version.id), against: current) {
                    line += "  \(summary)"
                }
            }
            if !version.resolves.isEmpty { line += "  resolves \(version.resolves.count)" }
            if let old = version.renamedFrom { line += "  renamed from \(old)" }
            if let new = version.renamedTo { line += "  renamed to \(new)" }
            if version.document != document { line += "  as \(version.document)" }
            Output.line(line)
        }
    }

    /// A short comparison of a version's lines with the current version's: lines only it has, lines only the current has.
    static func summary(_ content: DocumentContent?, against current: DocumentContent?) throws -> String? {
        switch (content, current) {
        case let (.file(data)?, .file(currentData)?):
            guard TextMergePolicy.isText(data), TextMergePolicy.isText(currentData) else {
                return data == currentData ? "same as current" : "binary, differs from current"
            }
            var counts: [Substring: Int] = [:]
            let text = String(decoding: data, as: UTF8.self), currentText = String(decoding: currentData, as: UTF8.self)
            for line in text.lines(keepingCarriageReturns: true) { counts[line, default: 0] += 1 }
            for line in currentText.lines(keepingCarriageReturns: true) { counts[line, default: 0] -= 1 }
            let added = counts.values.filter { $0 > 0 }.reduce(0, +)
            let removed = -counts.values.filter { $0 < 0 }.reduce(0, +)
            return added == 0 && removed == 0 ? "same lines as current" : "+\(added) -\(removed) lines vs current"
        case (.file?, nil): return "current is deleted"
        case let (.package(files)?, .package(currentFiles)?):
            let changed = Set(files.keys).union(currentFiles.keys).filter { files[$0] != currentFiles[$0] }
            return changed.isEmpty ? "same as current" : "\(changed.count) file\(changed.count == 1 ? "" : "s") differ from current"
        default: return nil
        }
    }
}
