import Foundation
import Git
import GitFormat
import Logging
import TestSupport
import Testing

@testable import Concord

/// `History.descends` answers as git's `merge-base --is-ancestor` does, whatever the commit
/// dates say: commits with several parents, several roots, and dates that go back and forth.
@Suite struct AncestryTests {
    /// Runs git in `folder` with `environment` added; returns its output without the last newline.
    @discardableResult
    func git(_ arguments: [String], in folder: String, environment: [String: String] = [:]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/git")
        process.arguments = ["-C", folder] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw ConcordError.failed("git \(arguments) failed") }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .newlines)
    }

    @Test(arguments: [1, 2, 3, 4])
    func descendsAnswersAsGitDoes(seed: UInt64) throws {
        let folder = NSTemporaryDirectory() + "concord-ancestry-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try git(["init", "-q", "--bare", folder], in: NSTemporaryDirectory())
        let tree = try git(["hash-object", "-t", "tree", "-w", "/dev/null"], in: folder)
        var random = SeededGenerator(seed: seed)
        var commits: [String] = []
        for index in 0..<40 {
            // Mostly one parent among the last few; some merges of two or three; some new roots.
            var parents: [String] = []
            if !commits.isEmpty && random.next() % 12 != 0 {
                let count = random.next() % 5 == 0 ? 2 + Int(random.next() % 2) : 1
                for _ in 0..<count {
                    let window = min(commits.count, 8)
                    let parent = commits[commits.count - 1 - Int(random.next() % UInt64(window))]
                    if !parents.contains(parent) { parents.append(parent) }
                }
            }
            // Dates that mostly rise, with a skewed clock now and then (up to a day back or ahead).
            let skew = random.next() % 4 == 0 ? Int(random.next() % 172_800) - 86_400 : 0
            let date = "\(1_800_000_000 + index * 60 + skew) +0000"
            let arguments = ["commit-tree", tree, "-m", "commit \(index)"] + parents.flatMap { ["-p", $0] }
            commits.append(try git(arguments, in: folder, environment: ["GIT_COMMITTER_DATE": date, "GIT_AUTHOR_DATE": date]))
        }
        var ancestors: [String: Set<String>] = [:]
        for commit in commits {
            ancestors[commit] = Set(try git(["rev-list", commit], in: folder).split(separator: "\n").map(String.init))
        }
        let history = History(repository: try Repository.open(at: folder), logger: Logger(label: "test"))
        var yes = 0
        for commit in commits {
            for ancestor in commits {
                let expected = commit != ancestor && ancestors[commit]!.contains(ancestor)
                #expect(try history.descends(OID(hex: commit)!, from: OID(hex: ancestor)!) == expected, "\(commit) from \(ancestor)")
                if expected { yes += 1 }
            }
        }
        #expect(yes > 100 && yes < 40 * 39 - 100, "both answers are asked often: \(yes) of \(40 * 39) descend")
    }
}
