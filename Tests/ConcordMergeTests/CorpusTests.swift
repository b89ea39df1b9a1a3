import ConcordMerge
import Foundation
import Testing

/// Real three-way merges from public repositories (see `Corpus/SOURCE.md`): for each policy and
/// for `git merge-file`, how many merge without a person and how many of those equal what people
/// committed. Set `CONCORD_CORPUS_REPORT` to a file path to have the table written there.
/// JSON policies run on the JSON files, `union` on the other text files, `text` on both (the
/// default policy, `auto`, is `json` for `*.json` and `text` for the rest).
struct CorpusTests {
    struct Case {
        var name: String
        var isJSON: Bool
        var base: Data
        var ours: Data
        var theirs: Data
        var merged: Data
    }

    struct Tally {
        var cases = 0
        var merged = 0
        var sameBytes = 0
        var sameJSON = 0

        func percent(_ count: Int, of total: Int) -> String {
            total == 0 ? "–" : String(format: "%.0f%%", 100 * Double(count) / Double(total))
        }
    }

    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Corpus")

    static func load() throws -> [Case] {
        var cases: [Case] = []
        for kind in ["json", "text"] {
            let folder = corpus.appendingPathComponent(kind)
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() {
                let directory = folder.appendingPathComponent(name)
                let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
                func read(_ role: String) throws -> Data {
                    let file = try #require(files.first { $0.hasPrefix(role + ".") })
                    return try Data(contentsOf: directory.appendingPathComponent(file))
                }
                cases.append(Case(name: "\(kind)/\(name)", isJSON: kind == "json", base: try read("base"),
                                  ours: try read("ours"), theirs: try read("theirs"), merged: try read("merged")))
            }
        }
        return cases
    }

    /// `git merge-file -p` on the three versions: the output and whether it merged cleanly.
    static func gitMergeFile(_ item: Case, in folder: URL) throws -> (Data, Bool) {
        let paths = ["ours", "base", "theirs"].map { folder.appendingPathComponent($0) }
        try item.ours.write(to: paths[0])
        try item.base.write(to: paths[1])
        try item.theirs.write(to: paths[2])
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git", "merge-file", "-p"] + paths.map(\.path)
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (output, process.terminationStatus == 0)
    }

    static func sameJSON(_ lhs: Data, _ rhs: Data) -> Bool {
        guard let left = try? JSONValue(parsing: lhs), let right = try? JSONValue(parsing: rhs) else { return false }
        return left == right
    }

    @Test func realMerges() throws {
        let cases = try CorpusTests.load()
        #expect(cases.count > 100)
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("concord-corpus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let policies: [any MergePolicy] = [TextMergePolicy(), UnionPolicy(), JSONMergePolicy(),
                                           JSONMergePolicy(settlesConflictsByLatest: true)]
        let columns = ["git merge-file"] + policies.map(\.name)
        var tallies: [String: [String: Tally]] = ["json": [:], "text": [:]]
        for item in cases {
            let kind = item.isJSON ? "json" : "text"
            func record(_ column: String, merged: Data?) {
                var tally = tallies[kind]?[column] ?? Tally()
                tally.cases += 1
                if let merged {
                    tally.merged += 1
                    if merged == item.merged { tally.sameBytes += 1 }
                    if item.isJSON && CorpusTests.sameJSON(merged, item.merged) { tally.sameJSON += 1 }
                }
                tallies[kind]?[column] = tally
            }
            let (gitOutput, gitClean) = try CorpusTests.gitMergeFile(item, in: scratch)
            record("git merge-file", merged: gitClean ? gitOutput : nil)
            for policy in policies {
                if (policy is JSONMergePolicy) != item.isJSON && !(policy is TextMergePolicy) { continue }
                let result = FileMerge(policy: policy).merge(base: item.base, current: item.ours, other: item.theirs)
                record(policy.name, merged: result.isMerged ? result.content : nil)
                if policy.name == "json", result.isMerged {
                    #expect((try? JSONValue(parsing: result.content)) != nil, "\(item.name)")
                }
            }
        }
        var report = ""
        for kind in ["json", "text"] {
            let total = tallies[kind]?["git merge-file"]?.cases ?? 0
            report += "\n### \(kind == "json" ? "JSON" : "Text") files (\(total) merges)\n\n"
            report += "| merger | merged automatically | of those, equal to the commit (bytes) |"
            report += kind == "json" ? " of those, equal to the commit (parsed JSON) |\n|---|---|---|---|\n" : "\n|---|---|---|\n"
            for column in columns {
                guard let tally = tallies[kind]?[column] else { continue }
                report += "| \(column) | \(tally.merged)/\(tally.cases) (\(tally.percent(tally.merged, of: tally.cases))) "
                report += "| \(tally.sameBytes)/\(tally.merged) (\(tally.percent(tally.sameBytes, of: tally.merged))) |"
                if kind == "json" { report += " \(tally.sameJSON)/\(tally.merged) (\(tally.percent(tally.sameJSON, of: tally.merged))) |" }
                report += "\n"
            }
        }
        print(report)
        if let path = ProcessInfo.processInfo.environment["CONCORD_CORPUS_REPORT"] {
            try Data(report.utf8).write(to: URL(fileURLWithPath: path))
        }
        let git = try #require(tallies["json"]?["git merge-file"])
        let json = try #require(tallies["json"]?["json"])
        #expect(json.merged > git.merged)
        #expect(json.sameJSON * 10 >= json.merged * 9)
    }
}
