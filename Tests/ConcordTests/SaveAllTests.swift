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
}
