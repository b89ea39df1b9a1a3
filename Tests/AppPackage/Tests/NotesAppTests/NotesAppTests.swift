import Concord
import ConcordMerge
import Foundation
import NotesApp
import Testing

/// Two devices of an app that depends on Concord by path, driven from the main actor.
@MainActor @Suite(.serialized) struct NotesAppTests {
    let folder = NSTemporaryDirectory() + "notes-app-" + UUID().uuidString

    func devices() async throws -> (NotesModel, NotesModel) {
        NotesModel.registerPolicies()
        let laptop = try await Container.create(
            at: "\(folder)/laptop", deviceName: "laptop", cloud: "\(folder)/cloud.git", options: NotesModel.options(label: "laptop"))
        let desktop = try await Container.clone(from: "\(folder)/cloud.git", to: "\(folder)/desktop", deviceName: "desktop")
        return (NotesModel(container: laptop), NotesModel(container: desktop))
    }

    /// Both devices change one list from a common ancestor; the second device's sync makes a conflict.
    func conflict(_ laptop: NotesModel, _ desktop: NotesModel) async throws {
        try await laptop.write("home.todo", "[ ] milk\n[ ] bread\n[ ] call Anna\n")
        try await laptop.container.sync()
        try await desktop.container.sync()
        try await laptop.write("home.todo", "[x] milk\n[ ] bread\n[ ] call Anna\n[ ] stamps\n")
        try await desktop.write("home.todo", "[ ] milk\n[ ] call Anna\n[ ] eggs\n")
        try await laptop.container.sync()
        try await desktop.container.sync()
    }

    static let merged = "[x] milk\n[ ] call Anna\n[ ] stamps\n[ ] eggs\n"

    @Test func theAppsPolicyResolvesAThreeWayConflictThroughMergeBySelectionAndAQueryTracksIt() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (laptop, desktop) = try await devices()
        try await laptop.useTodoPolicy(automatically: false)
        try await laptop.container.sync()
        try await desktop.container.sync()
        var seen: [[DocumentPath]] = []
        let (changes, changed) = AsyncStream.makeStream(of: [DocumentPath].self)
        desktop.watchConflicts { conflicts in
            seen.append(conflicts)
            changed.yield(conflicts)
        }
        var iterator = changes.makeAsyncIterator()
        #expect(await iterator.next() == [])
        try await conflict(laptop, desktop)
        #expect(await iterator.next() == [try DocumentPath("home.todo")])
        #expect(desktop.conflicts == [try DocumentPath("home.todo")])
        try await desktop.resolveAll()
        #expect(await iterator.next() == [])
        #expect(try await desktop.read("home.todo") == Self.merged)
        desktop.stopWatching()
        #expect(seen.count == 3)
    }

    @Test func theAgentResolvesWithTheAppsPolicyOnItsOwn() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (laptop, desktop) = try await devices()
        try await laptop.useTodoPolicy(automatically: true)
        try await laptop.container.sync()
        try await desktop.container.sync()
        try await laptop.write("home.todo", "[ ] milk\n[ ] bread\n[ ] call Anna\n")
        try await laptop.container.sync()
        try await desktop.container.sync()
        try await laptop.write("home.todo", "[x] milk\n[ ] bread\n[ ] call Anna\n[ ] stamps\n")
        try await laptop.container.sync()
        // The desktop's edit is in its work tree, not saved, when its agent starts: the agent saves
        // it, and its sync meets the laptop's edit. (Started before the edit, the agent, woken by
        // the laptop's push to this machine's cloud, could fetch first: then no conflict.)
        try Data("[ ] milk\n[ ] call Anna\n[ ] eggs\n".utf8).write(to: URL(fileURLWithPath: "\(desktop.container.root)/home.todo"))
        let agent = try desktop.container.watch(SyncAgent.Options(interval: .seconds(3600)))
        defer { agent.stop() }
        let resolved = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await event in agent.events {
                    if event.kind == .autoResolved { return true }
                    if event.kind == .failed { return false }
                }
                return false
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(60))
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        #expect(resolved)
        #expect(try await desktop.container.conflicts().isEmpty)
        #expect(try await desktop.read("home.todo") == Self.merged)
    }

    @Test func codableSettingsGoFromOneDeviceToTheOther() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (laptop, desktop) = try await devices()
        try await laptop.save(Settings(theme: "dark", fontSize: 14.5))
        try await laptop.container.sync()
        try await desktop.container.sync()
        #expect(try await desktop.settings() == Settings(theme: "dark", fontSize: 14.5))
    }
}
