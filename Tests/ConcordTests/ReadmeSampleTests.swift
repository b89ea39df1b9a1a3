// swift-format-ignore-file
// (the README sample below is kept as the README prints it, its comments aligned)
import Concord
import ConcordMerge
import Foundation
import Testing

/// The README's Swift samples are code the tests run: each sample's lines must appear, in order
/// and unchanged, in a test that runs them (apart from the lines naming paths on the reader's
/// machine), so that the samples cannot drift from the API.
@Suite struct ReadmeSampleTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The README's Swift code blocks, each as its lines without `import` lines and blank lines.
    static func readmeSamples() throws -> [[String]] {
        let text = try String(contentsOf: repository.appendingPathComponent("README.md"), encoding: .utf8)
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

    /// The lines of `file` between `// README sample` and `// end of README sample`, de-indented.
    static func sample(in file: String) throws -> [String] {
        let text = try String(contentsOf: repository.appendingPathComponent(file), encoding: .utf8)
        guard let start = text.range(of: "// README sample\n"), let end = text.range(of: "// end of README sample", range: start.upperBound..<text.endIndex) else { return [] }
        let lines = text[start.upperBound..<end.lowerBound].split(separator: "\n").map(String.init)
        let indent = lines.first.map { $0.prefix { $0 == " " }.count } ?? 0
        return lines.map { String($0.dropFirst(indent)) }.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
    }

    @Test func theReadmeSamplesAreTheCodeTheTestsRun() throws {
        let samples = try Self.readmeSamples()
        let pathLines: (String) -> Bool = { $0.hasPrefix("let cloud = ") || $0.hasPrefix("let folder = ") }
        let app = try Self.sample(in: "Tests/ConcordTests/ReadmeSampleTests.swift")
        #expect(samples.contains { $0.filter { !pathLines($0) } == app }, "the app sample in README.md and in ReadmeSampleTests differ")
        let merge = try Self.sample(in: "Tests/ConcordMergeTests/ByteLevelMergeTests.swift")
        #expect(samples.contains { $0.filter { !$0.hasPrefix("//") } == merge }, "the merge sample in README.md and in ByteLevelMergeTests differ")
    }

    /// The app sample, run as written against a cloud made for the test.
    @Test func theAppSampleRuns() async throws {
        let place = NSTemporaryDirectory() + "concord-readme-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: place) }
        _ = try Container.create(at: "\(place)/first", deviceName: "iPad", cloud: "\(place)/notes.git")
        let cloud = "\(place)/notes.git"
        let folder = "\(place)/notes"
        // README sample
        let phone = try Container.clone(from: cloud, to: folder, deviceName: "iPhone")
        let note = try phone.openDocument(DocumentPath("note.txt"))        // UIDocument; it need not exist yet
        let watcher = Task {
            for await change in note.changes() where change.state == .inConflict {
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
        try phone.keyValueStore.set(Data("\"dark\"".utf8), forKey: "theme") // NSUbiquitousKeyValueStore
        watcher.cancel()
        // end of README sample
        #expect(try string(Container.open(at: folder).content(of: DocumentPath("note.txt"))) == "hello")
        #expect(try phone.keyValueStore.value(forKey: "theme") == Data("\"dark\"".utf8))
    }
}
