import Concord
import ConcordMerge
import Foundation
import Synchronization
import Testing

/// Events a running agent has told so far, gathered by a task.
final class AgentEvents: Sendable {
    private final class Log: Sendable {
        let events = Mutex<[SyncAgentEvent]>([])
    }

    private let log = Log()
    private let task: Task<Void, Never>

    init(_ agent: SyncAgent) {
        let log = log
        task = Task { for await event in agent.events { log.events.withLock { $0.append(event) } } }
    }

    var all: [SyncAgentEvent] { log.events.withLock { $0 } }

    /// Waits (up to `seconds`) for an event of `kind` naming `document`.
    func waitFor(_ kind: SyncAgentEvent.Kind, _ document: String, seconds: Double = 90) async -> Bool {
        await eventually(seconds) { self.all.contains { $0.kind == kind && $0.documents.contains(doc(document)) } }
    }

    /// Waits until the agent's stream ended.
    func ended() async { await task.value }
}

/// Checks `condition` every tenth of a second until it holds or `seconds` pass.
func eventually(_ seconds: Double, _ condition: @Sendable () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        if Date() >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(100))
    }
    return true
}

@Suite struct SyncAgentTests {
    /// Writes `chunks` to `path` through one open file, `pause` apart, then closes it.
    private func writeSlowly(_ path: String, _ chunks: [String], pause: Duration, meanwhile: (Int) async throws -> Void = { _ in }) async throws {
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: path))
        for (index, chunk) in chunks.enumerated() {
            try handle.write(contentsOf: Data(chunk.utf8))
            try await meanwhile(index)
            try await Task.sleep(for: pause)
        }
        try handle.close()
    }

    /// A file written slowly (pauses longer than the quiet period, the whole longer than the
    /// longest wait) is saved once, whole, when its writer closes it; a file edited meanwhile is
    /// saved at once (issue 38: a 5 MB file written in chunks left seven partial versions).
    @Test func aFileIsSavedOnceItsWriterClosedIt() async throws {
        let fixture = try Fixture(devices: 1)
        let agent = try fixture[1].watch(SyncAgent.Options(interval: .seconds(3600)))
        let events = AgentEvents(agent)
        defer { agent.stop() }
        #expect(await eventually(90) { events.all.contains { $0.kind == .watching } })
        let chunks = (1...8).map { "part \($0) of the report\n" }
        let other = "\(fixture[1].root)/note.txt"
        try await writeSlowly("\(fixture[1].root)/report.txt", chunks, pause: .milliseconds(800)) { index in
            if index == 2 { try Data("a note\n".utf8).write(to: URL(fileURLWithPath: other)) }
            if index == 6 {
                #expect(try await fixture[1].versions(of: doc("note.txt")).count == 1, "the other file waits for nothing")
                await #expect(throws: ConcordError.self) { try await fixture[1].versions(of: doc("report.txt")) }
            }
        }
        #expect(await events.waitFor(.saved, "report.txt"), "\(events.all)")
        let versions = try await fixture[1].versions(of: doc("report.txt"))
        #expect(versions.count == 1, "\(versions.count) versions of a file written once")
        await #expect(string(try fixture[1].content(of: doc("report.txt"))) == chunks.joined())
    }

    /// A writer that keeps its file open past ``SyncAgent/Options/longestWrite`` gets the file
    /// saved as it stands, and saved again once it closes it.
    @Test func aFileLeftOpenIsSavedAfterTheBoundAndAgainWhenClosed() async throws {
        let fixture = try Fixture(devices: 1)
        let agent = try fixture[1].watch(SyncAgent.Options(interval: .seconds(3600), longestWrite: .seconds(2)))
        let events = AgentEvents(agent)
        defer { agent.stop() }
        #expect(await eventually(90) { events.all.contains { $0.kind == .watching } })
        let path = "\(fixture[1].root)/log.txt"
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.write(contentsOf: Data("first line\n".utf8))
        #expect(await events.waitFor(.saved, "log.txt"), "\(events.all)")
        await #expect(string(try fixture[1].content(of: doc("log.txt"))) == "first line\n")
        try handle.write(contentsOf: Data("second line\n".utf8))
        try handle.close()
        let device = fixture[1]
        #expect(await eventually(90) { (try? string(device.content(of: doc("log.txt")))) == "first line\nsecond line\n" })
    }

    @Test func twoAgentsInAnAppCarryAnEditFromOneWorkTreeToTheOther() async throws {
        let fixture = try Fixture(devices: 2)
        let options = SyncAgent.Options(interval: .seconds(3600))
        let one = try fixture[1].watch(options), two = try fixture[2].watch(options)
        let events = (AgentEvents(one), AgentEvents(two))
        defer { one.stop(); two.stop() }
        try Data("from the app\n".utf8).write(to: URL(fileURLWithPath: "\(fixture[1].root)/note.txt"))
        #expect(await events.0.waitFor(.saved, "note.txt"), "\(events.0.all)")
        #expect(await events.0.waitFor(.sent, "note.txt"))
        #expect(await events.1.waitFor(.received, "note.txt"))
        #expect(try String(contentsOfFile: "\(fixture[2].root)/note.txt", encoding: .utf8) == "from the app\n")
        // Device 2 has synced since it started: a second edit reaches it only by watching the cloud.
        try Data("again\n".utf8).write(to: URL(fileURLWithPath: "\(fixture[1].root)/note.txt"))
        let received = "\(fixture[2].root)/note.txt"
        #expect(await eventually(90) { (try? String(contentsOfFile: received, encoding: .utf8)) == "again\n" })
        #expect(events.0.all.first?.kind == .watching)
        one.stop()
        two.stop()
        await events.0.ended()
        await events.1.ended()
        await one.stopped()
    }

    /// An edit the agent has not saved yet (its quiet moment is an hour here) when another
    /// device's version arrives: the sync is refused, the agent saves the edit, syncs again, and
    /// both edits end as versions in contention; the work tree never lost the unsaved one.
    @Test func aVersionArrivingOverAnUnsavedEditMakesTheAgentSaveItFirst() async throws {
        let fixture = try Fixture(devices: 2)
        try await fixture[1].save(doc("note.txt"), content: text("base\n"))
        try await fixture.syncAll(rounds: 1)
        let hour = Duration.seconds(3600)
        let one = try fixture[1].watch(SyncAgent.Options(interval: hour))
        // Device 2 saves at start (nothing to save, then `start.txt`) and never again by watching.
        try Data("start\n".utf8).write(to: URL(fileURLWithPath: "\(fixture[2].root)/start.txt"))
        let two = try fixture[2].watch(SyncAgent.Options(interval: hour, quietPeriod: hour, longestWait: hour))
        let events = (AgentEvents(one), AgentEvents(two))
        defer { one.stop(); two.stop() }
        #expect(await events.1.waitFor(.sent, "start.txt"))
        try Data("unsaved on two\n".utf8).write(to: URL(fileURLWithPath: "\(fixture[2].root)/note.txt"))
        try Data("saved on one\n".utf8).write(to: URL(fileURLWithPath: "\(fixture[1].root)/note.txt"))
        #expect(await events.0.waitFor(.sent, "note.txt"))
        #expect(await events.1.waitFor(.saved, "note.txt"))
        #expect(await events.1.waitFor(.newConflict, "note.txt"))
        let contents = try await fixture[2].unresolvedVersions(of: doc("note.txt")).map { try string(fixture[2].content(of: doc("note.txt"), version: $0.id)) }
        #expect(Set(contents) == ["unsaved on two\n", "saved on one\n"])
        one.stop()
        two.stop()
        await one.stopped()
        await two.stopped()
    }

    /// An app whose tasks keep every thread of Swift's shared pool busy (here, blocked until the
    /// edit is saved, or a minute) still has its edit saved: the agent runs on a queue of its own.
    /// The agent starts, and the edit is made, from one of the blocked threads.
    @Test func theAgentSavesWhileTheAppKeepsSwiftsThreadsBusy() async throws {
        let fixture = try Fixture(devices: 1)
        let container = fixture[1]
        final class Started: Sendable { let agent = Mutex<SyncAgent?>(nil) }
        let started = Started()
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<ProcessInfo.processInfo.activeProcessorCount {
                group.addTask {
                    if index == 0 {
                        let agent = try container.watch(SyncAgent.Options(interval: .seconds(3600)))
                        started.agent.withLock { $0 = agent }
                        try Data("written while every thread is busy\n".utf8).write(to: URL(fileURLWithPath: "\(container.root)/note.txt"))
                    }
                    // Blocking on purpose: this thread stays busy the way an app's blocking code would keep it.
                    let saved: @Sendable () -> Bool = { (try? container.versions(of: doc("note.txt")).isEmpty) == false }
                    let deadline = Date().addingTimeInterval(60)
                    while Date() < deadline {
                        if saved() { return true }
                        usleep(20_000)
                    }
                    return false
                }
            }
            for try await saved in group { #expect(saved) }
        }
        let agent = try #require(started.agent.withLock { $0 })
        agent.stop()
        await agent.stopped()
    }

    /// An app whose blocking work fills Dispatch's global queue (here 120 calls, each blocked until
    /// the edit is saved, or a minute) still has its edit saved: the agent's saves, syncs and
    /// timers run on queues of their own. On the global queue, the save waited for every call
    /// queued before it (Dispatch adds a thread about once a second): CI's test process, with
    /// its many blocking calls, once kept an agent from saving for 90 s.
    @Test func theAgentSavesWhileTheAppsBlockingWorkFillsDispatchsGlobalQueue() async throws {
        let fixture = try Fixture(devices: 1)
        let device = fixture[1]
        let agent = try device.watch(SyncAgent.Options(interval: .seconds(3600)))
        defer { agent.stop() }
        let events = AgentEvents(agent)
        #expect(await eventually(90) { events.all.contains { $0.kind == .watching } })
        let calls = 120
        let release = DispatchSemaphore(value: 0), blocked = DispatchGroup()
        for _ in 0..<calls {
            // Blocking on purpose, the way an app's blocking call holds its thread.
            DispatchQueue.global().async(group: blocked) { _ = release.wait(timeout: .now() + 60) }
        }
        try Data("written while the global queue is full\n".utf8).write(to: URL(fileURLWithPath: "\(device.root)/note.txt"))
        // Watched from a thread of its own: Swift's tasks wait on the global queue too.
        let saved = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let deadline = Date().addingTimeInterval(60)
                var saved = false
                while !saved, Date() < deadline {
                    saved = (try? device.versions(of: doc("note.txt")).isEmpty) == false
                    if !saved { usleep(50_000) }
                }
                for _ in 0..<calls { release.signal() }
                continuation.resume(returning: saved)
            }
        }
        #expect(saved, "the edit was not saved while the global queue was full")
        blocked.wait()
    }

    /// Another process writing alone (util-linux flock standing in for its sync) disables no
    /// editing; a save waiting behind it (another handle on the container) does, until it ran.
    /// The holder keeps the lock until the test lets it go: no step depends on a timing.
    @Test func anOpenDocumentShowsEditingDisabledWhileAWriteWaits() async throws {
        let fixture = try Fixture(devices: 1)
        try await fixture[1].save(doc("a.txt"), content: text("a"))
        let document = try await fixture[1].openDocument(doc("a.txt"))
        let changes = document.changes()
        let holder = try await LockHolder(containerAt: fixture[1].root)
        // Told of the lock taken (inotify) by now: a writer alone leaves the document normal.
        try await Task.sleep(for: .milliseconds(300))
        #expect(document.state == .normal)
        // The waiting save blocks its thread: a Dispatch one, never one of Swift's few shared ones.
        let other = try await Container.open(at: fixture[1].root, options: Container.Options(lockTimeout: 600))
        let (saved, done) = AsyncStream.makeStream(of: String?.self)
        DispatchQueue.global().async {
            done.yield((try? other.save(doc("b.txt"), content: text("b")))?.version)
            done.finish()
        }
        let waiting = await collect(changes, within: 120) { $0.contains { $0.state == .editingDisabled } }
        #expect(waiting.contains { $0.state == .editingDisabled })
        try holder.release()
        var version: String?
        for await value in saved { version = value }
        #expect(version != nil)
        for _ in 0..<1200 where document.state != .normal { try await Task.sleep(for: .milliseconds(50)) }
        #expect(document.state == .normal)
    }
}
