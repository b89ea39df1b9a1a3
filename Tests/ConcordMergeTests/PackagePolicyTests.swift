import ConcordMerge
import Foundation
import Testing

struct PackagePolicyTests {
    private func package(_ files: [String: String]) -> DocumentContent {
        .package(files.mapValues { Data($0.utf8) })
    }

    private func versions(_ current: [String: String], _ other: [String: String]) -> [MergeVersion] {
        [
            MergeVersion(content: package(current), id: "c1", deviceName: "mac", deviceID: "m", clock: .init(milliseconds: 1), isCurrent: true),
            MergeVersion(content: package(other), id: "c2", deviceName: "ipad", deviceID: "i", clock: .init(milliseconds: 2)),
        ]
    }

    @Test func mergesFileByFile() {
        let base = package(["Info.json": #"{"title": "a", "pages": 1}"#, "body.txt": "one\ntwo\nthree\n", "old.png": "x"])
        let outcome = PackagePolicy(path: "Trip.note").merge(
            base: base,
            versions: versions(
                ["Info.json": #"{"title": "b", "pages": 1}"#, "body.txt": "ONE\ntwo\nthree\n", "old.png": "x", "new.txt": "n"],
                ["Info.json": #"{"title": "a", "pages": 2}"#, "body.txt": "one\ntwo\nTHREE\n"]))
        #expect(
            outcome
                == .merged(
                    package([
                        "Info.json": #"{"title": "b", "pages": 2}"#, "body.txt": "ONE\ntwo\nTHREE\n", "new.txt": "n",
                    ])))
    }

    @Test func rulesSelectEachFilesPolicy() throws {
        let rules = try PolicyRules(text: "*.note/*.log union\n")
        let base = package(["changes.log": "a\n"])
        let outcome = PackagePolicy(rules: rules, path: "Trip.note").merge(
            base: base, versions: versions(["changes.log": "a\nm\n"], ["changes.log": "a\ni\n"]))
        #expect(outcome == .merged(package(["changes.log": "a\nm\ni\n"])))
    }

    @Test func conflictingFileNeedsAPersonWithEveryOtherFileMerged() {
        let base = package(["a.txt": "1\n", "b.txt": "1\n"])
        let outcome = PackagePolicy().merge(base: base, versions: versions(["a.txt": "2\n", "b.txt": "1\n"], ["a.txt": "3\n", "b.txt": "4\n"]))
        guard case let .needsPerson(reason, markedUp?) = outcome, case let .package(files) = markedUp else {
            Issue.record("merged"); return
        }
        #expect(reason.hasPrefix("a.txt: "))
        #expect(files["b.txt"] == Data("4\n".utf8))
        #expect(String(decoding: files["a.txt"] ?? Data(), as: UTF8.self).contains("<<<<<<< mac"))
    }

    @Test func fileAgainstPackageNeedsAPerson() {
        let versions = [
            MergeVersion(content: .file(Data()), id: "1", deviceName: "mac", deviceID: "m", clock: .zero),
            MergeVersion(content: package(["a": "b"]), id: "2", deviceName: "ipad", deviceID: "i", clock: .zero),
        ]
        #expect(Fixtures.needsPerson(PackagePolicy().merge(base: package([:]), versions: versions)))
    }
}
