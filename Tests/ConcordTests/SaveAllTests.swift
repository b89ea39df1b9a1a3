import Concord
import ConcordMerge
import Foundation
import Testing

@Suite struct SaveAllTests {
    @Test func savesAddedChangedAndRemovedDocumentsInOneCommit() throws {
        let fixture = try Fixture(devices: 1, packages: ["*.note"])
        let device = fixture[1]
        let manager = FileManager.default
        try manager.createDirectory(atPath: device.root + "/folder/deep", withIntermediateDirectories: true)
        try manager.createDirectory(atPath: device.root + "/trip.note", withIntermediateDirectories: true)
        try "a".write(toFile: device.root + "/a.txt", atomically: true, encoding: .utf8)
        try "b".write(toFile: device.root + "/folder/deep/b.txt", atomically: true, encoding: .utf8)
        try "page".write(toFile: device.root + "/trip.note/page.md", atomically: true, encoding: .utf8)
        try manager.createSymbolicLink(atPath: device.root + "/link", withDestinationPath: "/etc/passwd")
        let first = try device.saveAll()
        #expect(first.added == [doc("a.txt"), doc("folder/deep/b.txt"), doc("trip.note")])
        #expect(first.skipped.map(\.path) == ["link"])
        #expect(try fixture.git(["rev-list", "--count", "main"], in: device.root) == "2\n")

        try "a2".write(toFile: device.root + "/a.txt", atomically: true, encoding: .utf8)
        try manager.removeItem(atPath: device.root + "/folder")
        let second = try device.saveAll()
        #expect(second.changed == [doc("a.txt")])
        #expect(second.removed == [doc("folder/deep/b.txt")])
        #expect(try device.versions(of: doc("folder/deep/b.txt")).first?.isDeleted == true)
        #expect(try device.saveAll().version == nil)
    }

    /// A package leaves out the files the ignore rules match (a `.DS_Store` a Mac put in it), and
    /// a new version written into the folder keeps them; `ignoredEntries` lists them.
    @Test func aPackageLeavesOutIgnoredFilesAndKeepsThemWhenWritten() throws {
        let fixture = try Fixture(devices: 1, packages: ["*.note"])
        let device = fixture[1]
        let manager = FileManager.default
        try manager.createDirectory(atPath: device.root + "/trip.note/images", withIntermediateDirectories: true)
        try "day 1".write(toFile: device.root + "/trip.note/text.md", atomically: true, encoding: .utf8)
        try "finder".write(toFile: device.root + "/trip.note/.DS_Store", atomically: true, encoding: .utf8)
        try "swap".write(toFile: device.root + "/trip.note/images/.text.md.swp", atomically: true, encoding: .utf8)
        #expect(try device.saveAll().added == [doc("trip.note")])
        #expect(try device.content(of: doc("trip.note")) == .package(["text.md": Data("day 1".utf8)]))
        try device.save(doc("trip.note"), content: .package(["text.md": Data("day 2".utf8)]))
        #expect(manager.fileExists(atPath: device.root + "/trip.note/.DS_Store"))
        #expect(manager.fileExists(atPath: device.root + "/trip.note/images/.text.md.swp"))
        #expect(try device.ignoredEntries().map(\.path) == ["trip.note/.DS_Store", "trip.note/images/.text.md.swp"])
        #expect(try device.saveAll().version == nil)
    }

    /// Work-tree names that are not UTF-8 or hold control characters are skipped and reported.
    @Test func namesThatAreNotUTF8OrHoldControlCharactersAreSkipped() throws {
        let fixture = try Fixture(devices: 1)
        let device = fixture[1]
        for name in [[0x62, 0x61, 0x64, 0xFF, 0x2E, 0x74, 0x78, 0x74], [0x74, 0x61, 0x62, 0x09, 0x2E, 0x74, 0x78, 0x74]] as [[UInt8]] {
            let path = Array(device.root.utf8) + [0x2F] + name + [0]
            let descriptor = path.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT, 0o644) }
            }
            try #require(descriptor >= 0)
            close(descriptor)
        }
        try "fine".write(toFile: device.root + "/fine.txt", atomically: true, encoding: .utf8)
        let result = try device.saveAll()
        #expect(result.added == [doc("fine.txt")])
        #expect(result.skipped.count == 2)
        #expect(try device.documents().map(\.path) == [doc("fine.txt")])
    }
}
