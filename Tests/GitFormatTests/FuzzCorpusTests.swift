import Foundation
import GitFormatFuzzing
import Testing

/// Every committed seed (`Tests/Fuzz/Corpus/<target>`) and every crash a fuzzer found
/// (`Tests/Fuzz/Crashes/<target>`) run through its fuzz target on each `swift test`, without
/// libFuzzer: a crash found stays a regression test, and a seed that stops passing is seen
/// before anyone fuzzes again.
@Suite struct FuzzCorpusTests {
    /// `Tests/Fuzz`.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fuzz")

    /// The files of `Tests/Fuzz/<kind>/<target>`, by name; none when the folder does not exist.
    static func files(_ kind: String, _ target: FuzzTarget) -> [URL] {
        let folder = root.appendingPathComponent(kind).appendingPathComponent(target.rawValue)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { folder.appendingPathComponent($0) }
    }

    /// The folders of `Tests/Fuzz/<kind>`.
    static func folders(_ kind: String) -> Set<String> {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(kind).path)) ?? []
        return Set(names.filter { !$0.hasPrefix(".") })
    }

    @Test(arguments: FuzzTarget.allCases)
    func everySeedAndEverySavedCrashPasses(_ target: FuzzTarget) throws {
        let seeds = Self.files("Corpus", target)
        #expect(!seeds.isEmpty, "no seed corpus in Tests/Fuzz/Corpus/\(target.rawValue)")
        for file in seeds + Self.files("Crashes", target) {
            let bytes = [UInt8](try Data(contentsOf: file))
            do {
                try bytes.withUnsafeBytes { try target.run($0) }
            } catch {
                Issue.record("\(target.rawValue): \(file.lastPathComponent): \(error)")
            }
        }
    }

    /// Each target has a fuzz executable and a seed corpus, and nothing else does (the
    /// executables are made from the folders of `Tests/Fuzz/Fuzzers`, scripts/fuzz lists them).
    @Test func theTargetsTheFuzzersAndTheCorporaAgree() {
        let targets = Set(FuzzTarget.allCases.map(\.rawValue))
        #expect(Self.folders("Fuzzers") == targets)
        #expect(Self.folders("Corpus") == targets)
        #expect(Self.folders("Crashes").isSubset(of: targets))
    }
}
