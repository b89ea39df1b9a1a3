import Concord
import ConcordMerge
import Foundation
import Testing

/// Writes proportional to the change (issue 38): what one edit costs a device that pushes to a
/// cloud on a local path, counted in the bytes of the files it adds to both object folders.
@Suite struct RollUpScheduleTests {
    /// The bytes of the files under `folder`, by path.
    func files(_ folder: String) -> [String: Int] {
        var sizes: [String: Int] = [:]
        let enumerator = FileManager.default.enumerator(atPath: folder)
        while let name = enumerator?.nextObject() as? String {
            if let size = try? FileManager.default.attributesOfItem(atPath: "\(folder)/\(name)")[.size] as? Int { sizes[name] = size }
        }
        return sizes
    }

    /// A device and its local cloud hold the same packs, so their geometric roll-ups come due
    /// at the same edit; one sync then rolled up both, and one edit of a month of notes wrote
    /// 1.3 MiB. The cloud's roll-up now waits for the next push when the device's own was
    /// large: in every edit, one of the two folders gets only the edit's pack, the one fetched,
    /// their indexes and small roll-ups (under 128 KiB; 140 to 370 KiB in both at four of these
    /// edits without the wait).
    @Test func oneEditNeverPaysForTheDevicesAndTheCloudsRollUps() async throws {
        let fixture = try Fixture(devices: 2)
        var generator = SystemRandomNumberGenerator()
        for edit in 0..<64 {
            let device = fixture[edit % 2 + 1]
            let folders = ["\(device.root)/.git/objects", "\(fixture.cloud)/objects"]
            let before = folders.map(files)
            let content = Data((0..<(16 << 10)).map { _ in UInt8.random(in: 0...255, using: &generator) })
            try content.write(to: URL(fileURLWithPath: "\(device.root)/file\(edit).bin"))
            _ = try await device.saveAll()
            try await device.sync()
            let written = zip(folders, before).map { folder, before in
                files(folder).reduce(0) { $0 + (before[$1.key] == $1.value ? 0 : $1.value) }
            }
            #expect(written.min()! < 128 << 10, "edit \(edit) wrote \(written[0]) bytes on the device and \(written[1]) in the cloud")
        }
    }

    /// The wait has a bound: in a folder of 3,000 documents each save rewrites a wide folder, so
    /// every push's device rolls up more than the wait's threshold; waiting for a push whose
    /// device rolled up less left the cloud's roll-up waiting for good (one more pack in the cloud
    /// at every edit: 33 after 30 edits). It now waits three pushes in a row at most: the
    /// cloud holds what its roll-up left and the packs of the pushes since (1 to 4 here, 6 at the
    /// first edits).
    @Test func aCloudsPacksStayFewWhenEveryPushRollsUpItsDevice() async throws {
        let fixture = try Fixture(devices: 2)
        for index in 0..<3000 {
            try Data("document \(index)\n".utf8).write(to: URL(fileURLWithPath: "\(fixture[1].root)/doc\(index).txt"))
        }
        _ = try await fixture[1].saveAll()
        try await fixture[1].sync()
        try await fixture[2].sync()
        for edit in 0..<30 {
            let device = fixture[edit % 2 + 1]
            try Data("edit \(edit)\n".utf8).write(to: URL(fileURLWithPath: "\(device.root)/doc\(edit).txt"))
            _ = try await device.saveAll()
            try await device.sync()
            let packs = try FileManager.default.contentsOfDirectory(atPath: "\(fixture.cloud)/objects/pack").filter { $0.hasSuffix(".pack") }
            #expect(packs.count <= 6, "the cloud holds \(packs.count) packs after edit \(edit)")
        }
    }
}
