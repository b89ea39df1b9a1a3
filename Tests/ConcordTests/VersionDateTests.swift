import Concord
import Foundation
import Synchronization
import Testing

/// A version's date keeps milliseconds (issue 40: two versions in contention, saved within one
/// second on two devices, showed the same time).
@Suite struct VersionDateTests {
    @Test func twoSavesInOneSecondHaveDatesToTheMillisecond() async throws {
        let ticks = Mutex<[Double]>([1_800_000_000.250, 1_800_000_000.750])
        let fixture = try Fixture(devices: 1) { _ in
            { Date(timeIntervalSince1970: ticks.withLock { $0.count > 1 ? $0.removeFirst() : $0[0] }) }
        }
        ticks.withLock { $0 = [1_800_000_000.250, 1_800_000_000.750] }
        try await fixture[1].save(doc("note.txt"), content: text("one\n"))
        try await fixture[1].save(doc("note.txt"), content: text("two\n"))
        let dates = try await fixture[1].versions(of: doc("note.txt")).map(\.modified.timeIntervalSince1970)
        #expect(dates.count == 2)
        #expect(dates.sorted() == [1_800_000_000.250, 1_800_000_000.750], "\(dates)")
    }
}
