import Concord
import ConcordMerge
import Foundation
import Synchronization
import Testing

/// Waits for the next element of a stream, at most `seconds`.
func next<Element: Sendable>(_ stream: AsyncStream<Element>, within seconds: Double = 10) async -> Element? {
    await withTaskGroup(of: Element?.self) { group in
        group.addTask {
            var iterator = stream.makeAsyncIterator()
            return await iterator.next()
        }
        group.addTask {
            try? await Task.sleep(for: .seconds(seconds))
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}

/// Collects elements until `done` holds, at most `seconds`.
func collect<Element: Sendable>(_ stream: AsyncStream<Element>, within seconds: Double = 10, until done: @escaping @Sendable ([Element]) -> Bool) async -> [Element] {
    await withTaskGroup(of: [Element]?.self) { group in
        group.addTask {
            var seen: [Element] = []
            for await element in stream {
                seen.append(element)
                if done(seen) { return seen }
            }
            return seen
        }
        group.addTask {
            try? await Task.sleep(for: .seconds(seconds))
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first ?? []
    }
}

@Suite struct ObservationTests {
    @Test func anOpenDocumentIsToldOfAConflictAndOfItsResolution() async throws {
        let fixture = try Fixture(devices: 2)
        try await fixture[1].save(doc("note.txt"), content: text("base"))
        try await fixture.syncAll(rounds: 1)
        let document = try await fixture[2].openDocument(doc("note.txt"))
        #expect(document.state == .normal)
        let changes = document.changes()
        try await fixture[1].save(doc("note.txt"), content: text("one"))
        try await fixture[1].sync()
        try await document.save(text("two"))
        try await fixture[2].sync()
        let seen = await collect(changes) { $0.contains { $0.state == .inConflict } }
        #expect(seen.contains { $0.state == .inConflict })
        #expect(document.state == .inConflict)
        #expect(try await document.versions().count == 2)

        try await fixture[1].sync()
        try await fixture[1].resolve(doc("note.txt"), using: .latest)
        try await fixture[1].sync()
        try await fixture[2].sync()
        let after = await collect(changes) { $0.contains { $0.state == .normal } }
        #expect(after.contains { $0.state == .normal })
        #expect(try await document.read() != nil)
        document.close()
        #expect(document.state == .closed)
    }

    @Test func eachChangeSaysWhatCausedItAndWhetherAnotherProcessMadeIt() async throws {
        let fixture = try Fixture(devices: 2)
        try await fixture[1].save(doc("note.txt"), content: text("base"))
        try await fixture.syncAll(rounds: 1)
        let document = try await fixture[2].openDocument(doc("note.txt"))
        let changes = document.changes()
        func nextContentChange() async -> DocumentChange? {
            await collect(changes) { $0.contains { $0.contentChanged } }.first { $0.contentChanged }
        }

        try await document.save(text("here"))
        let first = await nextContentChange()
        #expect(first.map { [$0.cause.rawValue, "\($0.byAnotherProcess)"] } == ["saved", "false"], "\(String(describing: first))")
        let other = try await Container.open(at: fixture[2].root)
        try await other.save(doc("note.txt"), content: text("another process"))
        #expect(await nextContentChange().map { [$0.cause.rawValue, "\($0.byAnotherProcess)"] } == ["saved", "true"])

        try await fixture[1].save(doc("note.txt"), content: text("elsewhere"))
        try await fixture[1].sync()
        try await fixture[2].sync()
        // The conflict comes during the sync, beside its progress flag, which goes when it ends.
        let conflict = await collect(changes) { $0.last?.state == .inConflict }
        #expect(conflict.first { $0.state.contains(.inConflict) }.map { [$0.cause.rawValue, "\($0.byAnotherProcess)"] } == ["synced", "false"])
        #expect(conflict.first?.state == .progressAvailable && conflict.first?.cause == .syncProgress)
        #expect(document.state == .inConflict)

        try await other.resolve(doc("note.txt"), using: .latest)
        let resolved = await collect(changes) { $0.contains { !$0.state.contains(.inConflict) } }
        #expect(resolved.last.map { [$0.cause.rawValue, "\($0.byAnotherProcess)"] } == ["resolved", "true"])
        #expect(document.state == .normal && document.state.name == "normal")
    }

    @Test func stateFlagsHoldTogetherAndNameTheMostImportant() {
        let state: DocumentState = [.inConflict, .editingDisabled]
        #expect(state.name == "inConflict")
        #expect(state.description == "inConflict+editingDisabled")
        #expect(DocumentState.normal.names == ["normal"])
        #expect(DocumentState([.savingError, .inConflict]).name == "savingError")
        // UIDocument.State's bit values, so that a ported app's stored or logged values keep their meaning.
        #expect([DocumentState.closed, .inConflict, .savingError, .editingDisabled, .progressAvailable].map(\.rawValue) == [1, 2, 4, 8, 16])
    }

    @Test func aSaveInAnotherProcessReachesAnOpenDocument() async throws {
        let fixture = try Fixture(devices: 1)
        try await fixture[1].save(doc("a.txt"), content: text("a"))
        let other = try await Container.open(at: fixture[1].root)
        let document = try await fixture[1].openDocument(doc("a.txt"))
        let changes = document.changes()
        try await other.save(doc("a.txt"), content: text("changed elsewhere"))
        // While the other writer holds the container the document says editingDisabled, then normal.
        let seen = await collect(changes) { $0.contains { $0.contentChanged } && $0.last?.state == .normal }
        #expect(seen.contains { $0.contentChanged })
        #expect(seen.last?.state == .normal)
        #expect(try string(await document.read()) == "changed elsewhere")
    }

    @Test func aFailedSaveShowsSavingError() async throws {
        let fixture = try Fixture(devices: 1, packages: ["*.note"])
        try await fixture[1].save(doc("x.note"), content: .package(["a": Data("a".utf8)]))
        let document = try await fixture[1].openDocument(doc("x.note"))
        await #expect(throws: ConcordError.self) { try await document.save(text("a file is not a package")) }
        #expect(document.state == .savingError)
    }

    @Test func aQueryGathersThenFollowsAddsChangesConflictsAndRemovals() async throws {
        let fixture = try Fixture(devices: 2)
        try await fixture[1].save(doc("notes/a.txt"), content: text("a"))
        try await fixture[1].save(doc("other.md"), content: text("m"))
        try await fixture.syncAll(rounds: 1)
        let events = fixture[2].query(matching: "*.txt")
        let gathered = await next(events)
        await #expect(gathered == .gathered(try fixture[2].documents(matching: "*.txt")))
        try await fixture[2].save(doc("notes/b.txt"), content: text("b"))
        try await fixture[2].save(doc("notes/a.txt"), content: text("a2"))
        try await fixture[2].save(doc("ignored.md"), content: text("not matched"))
        try await fixture[1].save(doc("notes/b.txt"), content: text("b from 1"))
        try await fixture[1].sync()
        try await fixture[2].sync()
        try await fixture[2].remove(doc("notes/a.txt"))
        let seen = await collect(events) { $0.contains { if case .removed = $0 { true } else { false } } }
        #expect(seen.contains { if case let .added(info) = $0 { info.path == doc("notes/b.txt") } else { false } })
        #expect(seen.contains { if case let .changed(info) = $0 { info.path == doc("notes/a.txt") } else { false } })
        #expect(seen.contains { if case let .stateChanged(info) = $0 { info.path == doc("notes/b.txt") && info.state == .inConflict } else { false } })
        #expect(seen.contains(.removed(doc("notes/a.txt"))))
        #expect(!seen.contains { if case let .added(info) = $0 { info.path == doc("ignored.md") } else { false } })
    }
}

/// Reads never wait behind a write of the same process: here a sync that waits for another
/// process's lock (util-linux flock standing in for it) while the app lists, reads and follows.
@Suite struct ReadersDuringASyncTests {
    @Test func listingReadingAndObservingGoOnWhileASyncWaits() async throws {
        let fixture = try Fixture(devices: 2)
        try await fixture[2].save(doc("a.txt"), content: text("a"))
        try await fixture.diverge("b.txt", base: "base\n", "one\n", "two\n")
        // The lock is let go below; the long wait only keeps a loaded machine from ending the sync first.
        let container = try await Container.open(at: fixture[1].root, options: Container.Options(lockTimeout: 120))
        let holder = try await LockHolder(containerAt: fixture[1].root)
        let ended = Mutex(false)
        let syncing = Task {
            defer { ended.withLock { $0 = true } }
            return try await container.sync()
        }
        // The sync holds this process's handle and waits for the lock; every read answers while it waits.
        try await Task.sleep(for: .milliseconds(500))
        #expect(try await container.conflicts().map(\.document) == [doc("b.txt")])
        #expect(try await container.documents().map(\.path.value) == ["a.txt", "b.txt"])
        #expect(try await string(container.content(of: doc("a.txt"))) == "a")
        #expect(try await container.unresolvedVersions(of: doc("b.txt")).count == 2)
        let document = try await container.openDocument(doc("b.txt"))
        #expect(document.state.contains(.inConflict))
        #expect(try await string(document.read()) != nil)
        let query = container.query(.inConflict)
        #expect(query.results.map(\.path) == [doc("b.txt")])
        #expect(!ended.withLock { $0 }, "the reads waited for the sync to end")
        let waitingSync = syncing
        try holder.release()
        let synced = await waitingSync.result
        #expect(throws: Never.self, "the sync once the lock was let go") { try synced.get() }
        query.stop()
        document.close()
    }
}
