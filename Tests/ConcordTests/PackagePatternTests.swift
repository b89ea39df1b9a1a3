import Concord
import ConcordMerge
import Foundation
import Testing

@Suite struct PackagePatternTests {
    @Test func aFolderBecomesAPackageAfterCreationOnEveryDeviceAndBack() async throws {
        let fixture = try Fixture(devices: 2)
        try await fixture[1].save(doc("trip/plan.txt"), content: text("plan"))
        try await fixture[1].save(doc("trip/costs.txt"), content: text("costs"))
        try await fixture[1].save(doc("note.md"), content: text("note"))
        try await fixture[1].setPackagePatterns(["trip", "*.bundle"])
        #expect(try await fixture[1].packagePatterns() == ["trip", "*.bundle"])
        try await fixture.syncAll()
        for device in fixture.devices {
            let listing = try await device.documents()
            #expect(listing.map(\.path.value) == ["note.md", "trip"])
            #expect(listing.first { $0.path == doc("trip") }?.isPackage == true)
            #expect(try await device.content(of: doc("trip")) == .package(["plan.txt": Data("plan".utf8), "costs.txt": Data("costs".utf8)]))
            #expect(try await !device.versions(of: doc("trip")).isEmpty)
        }
        try await fixture[2].setPackagePatterns([])
        try await fixture.syncAll()
        #expect(try await fixture[1].documents().map(\.path.value) == ["note.md", "trip/costs.txt", "trip/plan.txt"])
        #expect(try await fixture[1].packagePatterns().isEmpty)
    }

    @Test func aChangeThatWouldAlterAConflictOrAFileIsRefusedAndChangesNothing() async throws {
        let fixture = try Fixture(devices: 2)
        try await fixture.diverge("trip/plan.txt", base: "base\n", "one\n", "two\n")
        try await fixture[1].save(doc("note.md"), content: text("note"))
        let before = try fixture.mainTree(1)
        await #expect { try await fixture[1].setPackagePatterns(["trip"]) } throws: { "\($0)".contains("'trip/plan.txt' is in conflict") }
        await #expect { try await fixture[1].setPackagePatterns(["*.md"]) } throws: { "\($0)".contains("'note.md' is a file") }
        await #expect { try await fixture[1].setPackagePatterns(["trip/plan"]) } throws: { "\($0)".contains("invalid package pattern") }
        #expect(try fixture.mainTree(1) == before)
        #expect(try await fixture[1].packagePatterns().isEmpty)
        try await fixture[1].resolve(doc("trip/plan.txt"), using: .latest)
        try await fixture[1].setPackagePatterns(["trip"])
        #expect(try await fixture[1].documents().map(\.path.value) == ["note.md", "trip"])
    }

    /// A package pattern may hold a bracket expression: the folders whose names have a character
    /// of the set there are packages, on every device, and a folder beside them stays files.
    @Test func aPatternWithABracketMakesPackagesOfTheFoldersItMatchesOnly() async throws {
        let fixture = try Fixture(devices: 2, packages: ["trip[0-9]"])
        for folder in ["trip1", "tripA", "trip12"] {
            let path = "\(fixture[1].root)/\(folder)"
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            try Data("plan".utf8).write(to: URL(fileURLWithPath: "\(path)/plan.txt"))
        }
        _ = try await fixture[1].saveAll()
        try await fixture.syncAll()
        for device in fixture.devices {
            let listing = try await device.documents()
            #expect(listing.map(\.path.value) == ["trip1", "trip12/plan.txt", "tripA/plan.txt"])
            #expect(listing.filter(\.isPackage).map(\.path.value) == ["trip1"])
            #expect(try await device.content(of: doc("trip1")) == .package(["plan.txt": Data("plan".utf8)]))
        }
    }
}
