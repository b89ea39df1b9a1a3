import Foundation
import Testing

@testable import Concord

/// Many devices on one cloud: the pushes that lose a race wait a jittered, growing while, and
/// every device gets its versions up.
@Suite struct ManyDevicesTests {
    @Test func aLostRaceWaitsAJitteredGrowingWhile() {
        let backoff = RaceBackoff()
        #expect((1...8).map { backoff.bound(afterLost: $0) } == [50, 100, 200, 400, 800, 1600, 2000, 2000].map { Duration.milliseconds($0) })
        var generator = SystemRandomNumberGenerator()
        for lost in 1...8 {
            let waits = (0..<200).map { _ in backoff.delay(afterLost: lost, using: &generator) }
            #expect(waits.allSatisfy { $0 >= .zero && $0 <= backoff.bound(afterLost: lost) })
            #expect(Set(waits).count > 100, "spread, not in step")
        }
    }

    @Test func sixDevicesSyncingAtOnceAllGetTheirVersionsUp() async throws {
        let fixture = try Fixture(devices: 6)
        var attempts: [Int] = []
        for round in 1...3 {
            attempts += try await withThrowingTaskGroup(of: Int.self) { group in
                for (index, device) in fixture.devices.enumerated() {
                    group.addTask {
                        try await device.save(doc("device\(index + 1).txt"), content: text("round \(round)"))
                        return try await device.sync().attempts
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        // Every sync got its version up, whatever races it lost on the way (none threw
        // cloudKeptMoving); the counts show the races, here a handful of lost ones a run.
        #expect(attempts.count == 18 && attempts.allSatisfy { $0 >= 1 && $0 <= ContainerCore.maximumSyncAttempts })
        try await fixture.syncAll()
        for device in fixture.devices {
            let listing = try await device.documents()
            #expect(listing.count == 6)
            for index in 1...6 { #expect(try await string(device.content(of: doc("device\(index).txt"))) == "round 3") }
        }
    }
}
