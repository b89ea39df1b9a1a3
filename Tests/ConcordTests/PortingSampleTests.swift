// swift-format-ignore-file
// (the sample below is kept as the DocC article prints it, its comments aligned)
import Concord
import ConcordMerge
import Foundation
import Testing

/// The sample of the DocC article "Porting an iCloud document app" is this test's code, run from
/// the main actor as an app's code would be: the article's lines must be the lines between the
/// markers below, in order and unchanged (apart from the lines naming folders).
@MainActor @Suite struct PortingSampleTests {
    static let article = "Sources/Concord/Concord.docc/PortingAnICloudApp.md"

    @Test func theArticlesSampleIsTheCodeThisTestRuns() throws {
        let folders: (String) -> Bool = { $0.hasPrefix("let cloud = ") || $0.hasPrefix("let folder = ") || $0.hasPrefix("let otherFolder = ") }
        let sample = try ReadmeSampleTests.sample(in: "Tests/ConcordTests/PortingSampleTests.swift", marker: "Porting sample")
        let blocks = try ReadmeSampleTests.samples(inDocument: Self.article)
        #expect(!sample.isEmpty)
        #expect(blocks.contains { $0.filter { !folders($0) } == sample }, "the sample in \(Self.article) and in PortingSampleTests differ")
    }

    @Test func theArticlesSampleRuns() async throws {
        let place = NSTemporaryDirectory() + "concord-porting-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: place) }
        _ = try await Container.create(at: "\(place)/first", deviceName: "Mac", cloud: "\(place)/cloud.git")
        let cloud = "\(place)/cloud.git"
        let folder = "\(place)/ipad"
        let otherFolder = "\(place)/iphone"
        // Porting sample
        // FileManager.url(forUbiquityContainerIdentifier:): this device's clone of the cloud
        let container = try await Container.clone(from: cloud, to: folder, deviceName: "iPad")
        let list = try DocumentPath("Groceries.txt")

        // UIDocument(fileURL:), save(to:for:completionHandler:), stateChangedNotification
        let document = try await container.openDocument(list)
        let changes = document.changes()
        try await document.save(.file(Data("milk\nbread\n".utf8)))
        try await container.sync()

        // Another device edits the list meanwhile (here a second clone, the iPhone)
        let other = try await Container.clone(from: cloud, to: otherFolder, deviceName: "iPhone")
        try await other.save(list, content: .file(Data("milk\nbread\neggs\n".utf8)))
        try await other.sync()
        try await document.save(.file(Data("butter\nmilk\nbread\n".utf8)))
        try await container.sync()
        for await change in changes where change.state.contains(.inConflict) {   // documentState
            print(change.cause, change.byAnotherProcess)                        // synced false
            break
        }

        // NSFileVersion.currentVersionOfItem(at:), unresolvedConflictVersionsOfItem(at:)
        let versions = try await document.versions()
        print(versions.map(\.deviceName))                                       // ["iPad", "iPhone"]

        // NSFileVersion.replaceItem(at:), isResolved, removeOtherVersionsOfItem(at:)
        try await document.resolve(using: .merge(TextMergePolicy()))            // or .keep(id), .latest
        print(String(decoding: try await document.read()?.fileData ?? Data(), as: UTF8.self))

        // NSMetadataQuery: a predicate, its results, its batched updates
        let query = container.query(.path(matching: "*.txt") && .inConflict)
        print(query.results.count)                                              // 0

        // NSUbiquitousKeyValueStore
        try await container.keyValueStore.set("dark", forKey: "theme")
        print(try await container.keyValueStore.string(forKey: "theme") ?? "") // dark
        // end of Porting sample
        #expect(versions.map(\.deviceName) == ["iPad", "iPhone"])
        #expect(try await document.read() == .file(Data("butter\nmilk\nbread\neggs\n".utf8)))
        #expect(document.state == .normal && query.results.isEmpty)
        #expect(try await other.keyValueStore.string(forKey: "theme") == nil, "not synced yet")
        query.stop()
    }
}
