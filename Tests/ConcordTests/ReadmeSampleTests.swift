// swift-format-ignore-file
// (the README sample below is kept as README.md prints it, its comments aligned)
import Concord
import ConcordMerge
import Foundation
import Testing

/// The Swift samples of the README and the guide are code the tests run: each sample's lines must
/// appear, in order and unchanged, in a test that runs them (apart from the lines naming paths on
/// the reader's machine), so that the samples cannot drift from the API. The app sample is in
/// README.md, the byte-level merge sample in docs/GUIDE.md; a new sample in either needs a test
/// that runs it.
@Suite struct ReadmeSampleTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The Swift code blocks of the document at `path` (from the repository's root), each as its
    /// lines without `import` lines and blank lines.
    static func samples(inDocument path: String) throws -> [[String]] {
        let text = try String(contentsOf: repository.appendingPathComponent(path), encoding: .utf8)
        var samples: [[String]] = []
        var current: [String]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line == "```swift" { current = [] } else if line == "```", let lines = current {
                samples.append(lines)
                current = nil
            } else if current != nil, !line.hasPrefix("import "), !line.trimmingCharacters(in: .whitespaces).isEmpty {
                current?.append(line)
            }
        }
        return samples
    }

    /// The lines of `file` between `// MARKER` and `// end of MARKER`, de-indented.
    static func sample(in file: String, marker: String = "README sample") throws -> [String] {
        let text = try String(contentsOf: repository.appendingPathComponent(file), encoding: .utf8)
        guard let start = text.range(of: "// \(marker)\n"), let end = text.range(of: "// end of \(marker)", range: start.upperBound..<text.endIndex) else { return [] }
        let lines = text[start.upperBound..<end.lowerBound].split(separator: "\n").map(String.init)
        let indent = lines.first.map { $0.prefix { $0 == " " }.count } ?? 0
        return lines.map { String($0.dropFirst(indent)) }.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
    }

    @Test func theDocumentsSamplesAreTheCodeTheTestsRun() throws {
        let pathLines: (String) -> Bool = { $0.hasPrefix("let cloud = ") || $0.hasPrefix("let folder = ") }
        let app = try Self.sample(in: "Tests/ConcordTests/ReadmeSampleTests.swift")
        let merge = try Self.sample(in: "Tests/ConcordMergeTests/ByteLevelMergeTests.swift")
        #expect(!app.isEmpty && !merge.isEmpty, "a test lost its sample markers")
        let isApp: ([String]) -> Bool = { $0.filter { !pathLines($0) } == app }
        let isMerge: ([String]) -> Bool = { $0.filter { !$0.hasPrefix("//") } == merge }
        let readme = try Self.samples(inDocument: "README.md"), guide = try Self.samples(inDocument: "docs/GUIDE.md")
        #expect(readme.contains(where: isApp), "the app sample in README.md and in ReadmeSampleTests differ")
        #expect(guide.contains(where: isMerge), "the merge sample in docs/GUIDE.md and in ByteLevelMergeTests differ")
        for (document, samples) in [("README.md", readme), ("docs/GUIDE.md", guide)] {
            for sample in samples where !isApp(sample) && !isMerge(sample) {
                Issue.record("a Swift sample in \(document) that no test runs, starting: \(sample.first ?? "")")
            }
        }
    }

    /// The app sample, run as written against a cloud made for the test.
    @Test func theAppSampleRuns() async throws {
        let place = NSTemporaryDirectory() + "concord-readme-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: place) }
        _ = try await Container.create(at: "\(place)/first", deviceName: "iPad", cloud: "\(place)/notes.git")
        let cloud = "\(place)/notes.git"
        let folder = "\(place)/notes"
        // README sample
        let phone = try await Container.clone(from: cloud, to: folder, deviceName: "iPhone")
        let note = try await phone.openDocument(DocumentPath("note.txt"))  // UIDocument; it need not exist yet
        let watcher = Task {
            for await change in note.changes() where change.state.contains(.inConflict) {
                let versions = try await note.versions()                      // NSFileVersion: current + unresolved
                print("in conflict between", versions.map(\.deviceName))
                try await note.resolve(using: .merge(TextMergePolicy()))      // or .latest, .keep(id), .content(...)
            }
        }
        try await note.save(.file(Data("hello".utf8)))                     // the first save creates it
        try await phone.sync()
        for await event in phone.query(matching: "*.txt") {                // NSMetadataQuery: gathered, then updates
            print(event)
            break
        }
        try await phone.keyValueStore.set("dark", forKey: "theme")          // NSUbiquitousKeyValueStore
        watcher.cancel()
        // end of README sample
        await #expect(try string(Container.open(at: folder).content(of: DocumentPath("note.txt"))) == "hello")
        #expect(try await phone.keyValueStore.string(forKey: "theme") == "dark")
    }
}
