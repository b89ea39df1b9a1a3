import Foundation
import Testing

/// One real three-way merge of the corpus (see `Corpus/SOURCE.md`): the file in the merge base,
/// in both parents and in the merge commit, with what `cases.tsv` says of it.
struct CorpusCase {
    /// The folder under `Corpus/`, for example `symfony/017`.
    var name: String
    /// `development` or `heldout`.
    var set: String
    var repository: String
    /// `json` or `text`.
    var kind: String
    /// `clean` when `git merge-file` merges it without a conflict, else `conflict`.
    var stratum: String
    var path: String
    var base: Data
    var ours: Data
    var theirs: Data
    var merged: Data

    /// `Corpus/`, beside this file: `cases.tsv` and `SOURCE.md`, committed.
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Corpus")

    /// Where the cases' files are: `$CONCORD_CORPUS`, else `Corpus/` when
    /// `scripts/corpus/extract.py` wrote them there, else `shared/merge-corpus` beside the
    /// repository. The files are data from public repositories and are never committed here.
    static let files: URL? = {
        let checkout = folder.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        var candidates = [folder, checkout.appendingPathComponent("../shared/merge-corpus").standardized]
        if let given = ProcessInfo.processInfo.environment["CONCORD_CORPUS"] { candidates.insert(URL(fileURLWithPath: given), at: 0) }
        let first = (try? String(contentsOf: folder.appendingPathComponent("cases.tsv"), encoding: .utf8))?
            .split(separator: "\n").dropFirst().first?.split(separator: "\t").first.map(String.init)
        guard let first else { return nil }
        return candidates.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent(first).path) }
    }()

    /// True when the cases' files can be read.
    static var isAvailable: Bool { files != nil }

    /// Every case listed in `cases.tsv`, in its order.
    static func loadAll() throws -> [CorpusCase] {
        let table = try String(contentsOf: folder.appendingPathComponent("cases.tsv"), encoding: .utf8)
        let root = try #require(files, "the corpus's files are missing: see Corpus/SOURCE.md")
        var cases: [CorpusCase] = []
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            try #require(fields.count == 10, "cases.tsv: \(line)")
            let directory = root.appendingPathComponent(fields[0])
            let fileExtension = URL(fileURLWithPath: fields[9]).pathExtension
            func read(_ role: String) throws -> Data {
                try Data(contentsOf: directory.appendingPathComponent("\(role).\(fileExtension.isEmpty ? "txt" : fileExtension)"))
            }
            cases.append(
                CorpusCase(
                    name: fields[0], set: fields[1], repository: fields[2], kind: fields[3], stratum: fields[4], path: fields[9],
                    base: try read("base"), ours: try read("ours"), theirs: try read("theirs"), merged: try read("merged")))
        }
        return cases
    }

    /// `git merge-file -p ours base theirs`: its output and whether it merged without a conflict.
    func gitMergeFile(in scratch: URL) throws -> (output: Data, clean: Bool) {
        let paths = ["ours", "base", "theirs"].map { scratch.appendingPathComponent($0) }
        try ours.write(to: paths[0])
        try base.write(to: paths[1])
        try theirs.write(to: paths[2])
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git", "merge-file", "-p"] + paths.map(\.path)
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationReason == .exit && process.terminationStatus < 128, "git merge-file failed on \(name)")
        return (output, process.terminationStatus == 0)
    }
}
