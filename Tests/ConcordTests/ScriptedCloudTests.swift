@_spi(Testing) import Concord
import Foundation
import Git
import Synchronization
import Testing
import TestSupport

/// Syncs against a cloud whose calls are scripted (``ScriptedCloud``): another device moves the
/// cloud, or a call fails, at the exact moment a test chooses, and the test checks the exact
/// calls the sync made.
@Suite struct ScriptedCloudTests {
    /// Two devices on one cloud; device 1 reaches it through a script.
    private final class Scripted {
        let fixture: Fixture
        let script: ScriptedCloud

        init() async throws {
            fixture = try Fixture(devices: 2)
            try await fixture[1].save(doc("a.txt"), content: text("a"))
            try await fixture.syncAll(rounds: 1)
            script = ScriptedCloud(cloudAt: fixture.cloud)
            let script = script
            CloudSubstitution.install(containerAt: fixture[1].root) { try script.makeCloud() }
        }

        deinit { CloudSubstitution.remove(containerAt: fixture[1].root) }

        /// A step in which device 2 saves `name` and syncs: the cloud moves.
        func device2Syncs(_ name: String) -> ScriptedCloud.Step {
            let device2 = fixture[2]
            return .after {
                // The cloud's calls come on a thread of their own, which may wait for this.
                let done = DispatchSemaphore(value: 0)
                let failure = Mutex<(any Error)?>(nil)
                Task {
                    do {
                        try await device2.save(doc(name), content: text(name))
                        try await device2.sync()
                    } catch {
                        failure.withLock { $0 = error }
                    }
                    done.signal()
                }
                done.wait()
                if let error = failure.withLock({ $0 }) { throw error }
            }
        }

        func git(_ arguments: String..., in path: String) throws -> String {
            try fixture.git(arguments, in: path).trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// The attempts a sync makes before it gives up on a cloud that keeps moving.
    private static let attempts = 8

    private static let reset = GitError(code: .generic, errorClass: .net, message: "connection reset by peer", function: "scripted")

    @Test func aPushThatLosesTheRaceFetchesAgainAndKeepsItsFirstIntegration() async throws {
        let scripted = try await Scripted()
        let fixture = scripted.fixture
        try await fixture[2].save(doc("b.txt"), content: text("b"))
        try await fixture[2].sync()
        let b1 = try scripted.git("rev-parse", "main", in: fixture.cloud)
        try await fixture[1].save(doc("c.txt"), content: text("c"))
        scripted.script.on(.push, scripted.device2Syncs("d.txt"))

        let report = try await fixture[1].sync()

        #expect(scripted.script.log == ["fetch", "push cloudMoved", "fetch", "push pushed"])
        #expect(report.attempts == 2)
        #expect(report.outcome == .integrated)
        let b2 = try scripted.git("rev-parse", "main", in: fixture[2].root)
        #expect(b2 != b1)
        // The second attempt integrated the first attempt's integration with the cloud's new
        // commit: the work done for the lost race was kept, not redone.
        #expect(try scripted.git("rev-parse", "main^2", in: fixture[1].root) == b2)
        #expect(try scripted.git("rev-parse", "main^1^2", in: fixture[1].root) == b1)
        #expect(try scripted.git("rev-parse", "main", in: fixture.cloud) == scripted.git("rev-parse", "main", in: fixture[1].root))
        try await fixture[2].sync()
        await #expect(try string(fixture[2].content(of: doc("b.txt"))) == "b")
        await #expect(try string(fixture[2].content(of: doc("c.txt"))) == "c")
        await #expect(try string(fixture[2].content(of: doc("d.txt"))) == "d.txt")
    }

    @Test func aCloudThatKeepsMovingIsGivenUpOnWithTheVersionKeptForTheNextSync() async throws {
        let scripted = try await Scripted()
        let fixture = scripted.fixture
        try await fixture[1].save(doc("c.txt"), content: text("c"))
        for index in 1...Self.attempts {
            scripted.script.on(.push, scripted.device2Syncs("b\(index).txt"))
        }

        await #expect(throws: ConcordError.cloudKeptMoving(attempts: Self.attempts)) { try await fixture[1].sync() }

        #expect(scripted.script.log == Array(repeating: ["fetch", "push cloudMoved"], count: Self.attempts).flatMap { $0 })
        #expect(try await fixture[1].waitingVersionCount() == 1)
        scripted.script.clearLog()
        try await fixture[1].sync()
        #expect(scripted.script.log == ["fetch", "push pushed"])
        try await fixture[2].sync()
        await #expect(try string(fixture[2].content(of: doc("c.txt"))) == "c")
    }

    /// An edit made while the agent's sync keeps losing races is saved at once, not after the
    /// sync gives up (20 devices on one cloud: syncs lost races for tens of seconds, and edits
    /// made meanwhile were replaced by the next edit before they were saved, never a version).
    /// Here every push finds the cloud moved, and the first one also sees `e.txt` written.
    @Test func anEditMadeWhileTheAgentsSyncKeepsLosingIsSavedBeforeTheSyncGoesOn() async throws {
        let scripted = try await Scripted()
        let fixture = scripted.fixture
        let root = fixture[1].root
        let moves = (1...Self.attempts).map { scripted.device2Syncs("b\($0).txt") }
        let editing = ScriptedCloud.Step.after {
            if case let .after(move) = moves[0] { try move() }
            try Data("written during the sync\n".utf8).write(to: URL(fileURLWithPath: "\(root)/e.txt"))
        }
        scripted.script.on(.push, editing)
        for move in moves.dropFirst() { scripted.script.on(.push, move) }
        let agent = try fixture[1].watch(SyncAgent.Options(interval: .seconds(3600)))
        let events = AgentEvents(agent)
        defer { agent.stop() }
        #expect(await eventually(90) { events.all.contains { $0.kind == .watching } })
        try Data("c\n".utf8).write(to: URL(fileURLWithPath: "\(root)/c.txt"))

        #expect(await events.waitFor(.saved, "e.txt"), "\(events.all)")
        let kinds = events.all.map(\.kind)
        let saved = kinds.indices.first { kinds[$0] == .saved && events.all[$0].documents.contains(doc("e.txt")) } ?? kinds.count
        #expect(!kinds[..<saved].contains(.failed), "the sync gave up before the edit was saved: \(events.all)")
        #expect(scripted.script.log.contains("push cloudMoved"), "\(scripted.script.log)")
    }

    @Test func aPushCutOffLeavesTheIntegrationToBeSentAsItIs() async throws {
        let scripted = try await Scripted()
        let fixture = scripted.fixture
        try await fixture[2].save(doc("b.txt"), content: text("b"))
        try await fixture[2].sync()
        try await fixture[1].save(doc("c.txt"), content: text("c"))
        scripted.script.on(.push, .fail(Self.reset))

        let error = await #expect(throws: ConcordError.self) { try await fixture[1].sync() }

        guard case let .offline(reason, waiting) = error else { Issue.record("not offline: \(String(describing: error))"); return }
        #expect(reason.contains("connection reset by peer"))
        #expect(waiting == 1)
        #expect(fixture[1].lastSync()?.outcome == LastSync.offline)
        let integration = try scripted.git("rev-parse", "main", in: fixture[1].root)
        #expect(try scripted.git("rev-list", "--parents", "-n1", "main", in: fixture[1].root).split(separator: " ").count == 3)
        scripted.script.clearLog()

        let report = try await fixture[1].sync()

        #expect(scripted.script.log == ["fetch", "push pushed"])
        #expect(report.attempts == 1)
        #expect(try scripted.git("rev-parse", "main", in: fixture.cloud) == integration)
    }

    @Test func aFetchCutOffChangesNothing() async throws {
        let scripted = try await Scripted()
        let fixture = scripted.fixture
        try await fixture[2].save(doc("b.txt"), content: text("b"))
        try await fixture[2].sync()
        try await fixture[1].save(doc("c.txt"), content: text("c"))
        let before = try scripted.git("rev-parse", "main", "origin/main", in: fixture[1].root)
        scripted.script.on(.fetch, .fail(Self.reset))

        await #expect(throws: ConcordError.self) { try await fixture[1].sync() }

        #expect(scripted.script.log == ["fetch failed"])
        #expect(try scripted.git("rev-parse", "main", "origin/main", in: fixture[1].root) == before)
        #expect(try await fixture[1].waitingVersionCount() == 1)
        await #expect(throws: ConcordError.self) { try await fixture[1].content(of: doc("b.txt")) }
    }
}
