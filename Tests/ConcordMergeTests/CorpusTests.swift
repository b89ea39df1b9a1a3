import ConcordMerge
import Foundation
import Testing

/// Real three-way merges from public repositories (see `Corpus/SOURCE.md`), run through
/// `git merge-file` and every policy of ``MergePolicies/all``. The figures must be those of
/// `docs/merge-corpus.md`, within ``margin(stratumSize:)``; set `CONCORD_CORPUS_REPORT` to a file
/// path to have the measured tables written there (they are printed as well). The cases' files
/// are not committed (see `Corpus/SOURCE.md`): without them these tests are skipped.
@Suite(.enabled(if: CorpusCase.isAvailable, "the corpus's files are missing: see Tests/ConcordMergeTests/Corpus/SOURCE.md"))
struct CorpusTests {
    static let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../docs/merge-corpus.md").standardized
    static let mergers = ["git merge-file"] + MergePolicies.names
    static let jsonPolicies: Set<String> = ["json", "json-latest", "auto"]

    /// What one run over the corpus found: the tallies, and the cases that broke a rule, by rule.
    struct Run {
        var cases: [CorpusCase] = []
        var tally = CorpusTally()
        var problems: [String: [String]] = [:]
    }

    /// The run, made once and shared by the tests.
    static let run: Result<Run, any Error> = Result { try measure() }

    /// How far a documented count may be from the measured one: 1% of the stratum's cases,
    /// at least one case. Every merger is deterministic, so on this fixed corpus a figure moves only
    /// when a policy changes; the margin lets a change that moves fewer than 1% of a stratum's
    /// merges land without rewriting the tables, and anything larger must update the document.
    static func margin(stratumSize: Int) -> Int {
        max(1, stratumSize / 100)
    }

    static func measure() throws -> Run {
        var run = Run()
        run.cases = try CorpusCase.loadAll()
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("concord-corpus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        for item in run.cases {
            let git = try item.gitMergeFile(in: scratch)
            if git.clean != (item.stratum == "clean") {
                run.problems["stratum", default: []].append("\(item.name): git merge-file says \(git.clean ? "clean" : "conflict")")
            }
            run.tally.record(item, merger: "git merge-file", output: git.clean ? git.output : nil)
            for policy in MergePolicies.all {
                let result = policy.merge(base: item.base, current: item.ours, other: item.theirs)
                run.tally.record(item, merger: policy.name, output: result.isMerged ? result.content : nil)
                check(result, of: policy.name, on: item, git: git, into: &run.problems)
            }
        }
        return run
    }

    /// Notes every rule a result breaks: merged JSON that does not parse, text merged unlike git
    /// where git is clean, json needing a person where git's clean line merge parses.
    private static func check(
        _ result: MergeResult, of policy: String, on item: CorpusCase,
        git: (output: Data, clean: Bool), into problems: inout [String: [String]]
    ) {
        if item.kind == "json", jsonPolicies.contains(policy), result.isMerged, (try? JSONValue(parsing: result.content)) == nil {
            problems["unparsable", default: []].append("\(item.name): \(policy) merged JSON that does not parse")
        }
        if policy == "text", git.clean, !result.isMerged || result.content != git.output {
            problems["text-unlike-git", default: []].append("\(item.name)")
        }
        if item.kind == "json", policy == "json", git.clean, !result.isMerged, (try? JSONValue(parsing: git.output)) != nil {
            problems["json-worse-than-git", default: []].append("\(item.name): \(result.reason ?? "")")
        }
    }

    @Test func theFiguresAreTheDocumentedOnes() throws {
        let run = try CorpusTests.run.get()
        let report = run.tally.markdown(mergers: CorpusTests.mergers)
        print(report)
        if let path = ProcessInfo.processInfo.environment["CONCORD_CORPUS_REPORT"] {
            try Data(report.utf8).write(to: URL(fileURLWithPath: path))
        }
        let documented = CorpusTally.cells(in: try String(contentsOf: CorpusTests.docs, encoding: .utf8))
        let measured = CorpusTally.cells(in: report)
        #expect(measured.count > 200)
        for (cell, value) in measured.sorted(by: { $0.key.description < $1.key.description }) {
            guard let expected = documented[cell] else {
                Issue.record("docs/merge-corpus.md has no figure for \(cell)")
                continue
            }
            let stratum = cell.column.hasPrefix("git-clean") ? "clean" : "conflict"
            let margin = CorpusTests.margin(stratumSize: run.tally.stratumSize(title: cell.section, stratum: stratum))
            #expect(
                abs(value.count - expected.count) <= margin && abs(value.of - expected.of) <= margin,
                "\(cell): measured \(value.count)/\(value.of), documented \(expected.count)/\(expected.of) (margin \(margin))")
        }
    }

    @Test func theCorpusIsWhatItsSourceSays() throws {
        let run = try CorpusTests.run.get()
        #expect(run.problems["stratum", default: []] == [])
        let repositories = Set(run.cases.map(\.repository))
        #expect(run.cases.count >= 600)
        #expect(repositories.count >= 8)
        #expect(Set(run.cases.filter { $0.set == "heldout" }.map(\.repository)).isDisjoint(with: run.cases.filter { $0.set == "development" }.map(\.repository)))
    }

    @Test func mergedJSONAlwaysParses() throws {
        #expect(try CorpusTests.run.get().problems["unparsable", default: []] == [])
    }

    @Test func textMergesExactlyAsGitWhereGitIsClean() throws {
        #expect(try CorpusTests.run.get().problems["text-unlike-git", default: []] == [])
    }

    @Test func jsonMergesWhereverGitsLineMergeIsCleanValidJSON() throws {
        #expect(try CorpusTests.run.get().problems["json-worse-than-git", default: []] == [])
    }
}
