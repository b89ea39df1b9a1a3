import Concord
import ConcordMerge
import Foundation
import Testing

@Suite struct KeyValueStoreTests {
    func json(_ text: String) -> Data { Data(text.utf8) }

    @Test func setGetRemoveAndList() throws {
        let fixture = try Fixture(devices: 1)
        let store = fixture[1].keyValueStore
        try store.set(json("{\"theme\": \"dark\"}"), forKey: "settings")
        try store.set(json("42"), forKey: "answer")
        #expect(try store.value(forKey: "answer") == json("42"))
        #expect(try store.dictionary().keys.sorted() == ["answer", "settings"])
        try store.removeValue(forKey: "answer")
        #expect(try store.value(forKey: "answer") == nil)
        #expect(try fixture[1].documents().isEmpty, "the store is not a document")
    }

    private struct Settings: Codable, Equatable {
        var theme: String
        var fontSize: Double
        var pinned: [String]
    }

    /// Codable values and the primitive getters (issue 40), read on another device after a sync;
    /// a value of another type is an error naming the key, and the getters answer as Apple's do
    /// for a key that is not set.
    @Test func typedValuesTravelAndAWrongTypeNamesTheKey() async throws {
        let fixture = try Fixture(devices: 2)
        let store = fixture[1].keyValueStore
        let settings = Settings(theme: "light", fontSize: 13.5, pinned: ["inbox.md"])
        try await store.set(settings, forKey: "settings")
        try await store.set("light", forKey: "theme")
        try await store.set(true, forKey: "sync-photos")
        try await store.set(2.5, forKey: "zoom")
        try await store.set(Int64(1) << 40, forKey: "big")
        try await store.set(data: Data([0, 1, 2, 255]), forKey: "blob")
        await #expect(try store.value(forKey: "theme") == json("\"light\""), "stored as JSON")
        try await fixture.syncAll()
        let other = fixture[2].keyValueStore
        await #expect(try other.value(Settings.self, forKey: "settings") == settings)
        await #expect(try other.string(forKey: "theme") == "light")
        #expect(try await other.bool(forKey: "sync-photos"))
        #expect(try await other.double(forKey: "zoom") == 2.5)
        #expect(try await other.longLong(forKey: "big") == 1 << 40)
        await #expect(try other.data(forKey: "blob") == Data([0, 1, 2, 255]))
        #expect(try await other.string(forKey: "missing") == nil)
        #expect(try await !other.bool(forKey: "missing"))
        #expect(try await other.double(forKey: "missing") == 0)
        await #expect(try other.string(forKey: "zoom") == nil, "a number is not a string")
        #expect {
            try other.value(Settings.self, forKey: "theme")
        } throws: { error in
            "\(error)".contains("'theme'") && "\(error)".contains("Settings")
        }
        #expect {
            try store.set(json("{oops"), forKey: "broken")
        } throws: { error in
            "\(error)".contains("'broken'")
        }
    }

    @Test func limitsAreClearErrorsThatChangeNothing() throws {
        let fixture = try Fixture(devices: 1)
        let store = fixture[1].keyValueStore
        let before = try fixture.mainTree(1)
        #expect(throws: ConcordError.self) { try store.set(json("1"), forKey: String(repeating: "k", count: 65)) }
        #expect(throws: ConcordError.self) { try store.set(json("not json"), forKey: "k") }
        #expect(throws: ConcordError.self) { try store.set(json("\"\(String(repeating: "x", count: 1_048_600))\""), forKey: "big") }
        #expect(throws: ConcordError.self) { try store.set(json("1"), forKey: "") }
        #expect(try fixture.mainTree(1) == before)
    }

    @Test func theThousandAndTwentyFifthKeyIsRefused() throws {
        let fixture = try Fixture(devices: 1)
        let store = fixture[1].keyValueStore
        try store.set(Dictionary(uniqueKeysWithValues: (0..<KeyValueStore.maximumKeyCount).map { ("k\($0)", json("\($0)")) }))
        #expect(throws: ConcordError.self) { try store.set(json("1"), forKey: "one too many") }
        try store.set(json("\"replaced\""), forKey: "k0")
        #expect(try store.dictionary().count == KeyValueStore.maximumKeyCount)
    }

    /// A key written with `é` as one scalar (NFC) and as `e` and a combining accent (NFD) is one
    /// key to the store's `String` keys, but two names in its folder. The latest write of either
    /// spelling is the value, on every device; the names' order in the tree decided before, so a
    /// write or a removal in the spelling that sorts first was never seen.
    @Test func aKeyWrittenInEitherNormalizationIsOneKeyWhoseLatestWriteWins() async throws {
        let (composed, decomposed) = ("caf\u{E9}", "cafe\u{301}")
        let fixture = try Fixture(devices: 2)
        let store = fixture[1].keyValueStore
        try await store.set(json("1"), forKey: composed)
        try await store.set(json("2"), forKey: decomposed)
        await #expect(try await store.value(forKey: composed) == json("2"))
        await #expect(try await store.dictionary() == [composed: json("2")])
        try await store.removeValue(forKey: decomposed)
        await #expect(try await store.value(forKey: composed) == nil)
        await #expect(try await store.dictionary().isEmpty)
        try await store.set(json("3"), forKey: composed)
        try await fixture[2].keyValueStore.set(json("4"), forKey: decomposed)
        try await fixture.syncAll()
        for device in fixture.devices {
            await #expect(try await device.keyValueStore.dictionary() == [composed: json("4")])
        }
        // A value's members are kept in the order of their names' bytes: the same value gives
        // the same text whatever order it was written in (String's `<` takes the two names for
        // equal, and kept them as written).
        try await store.set(json(#"{"\#(decomposed)": 1, "\#(composed)": 2}"#), forKey: "twins")
        let first = try await store.value(forKey: "twins")
        try await store.set(json(#"{"\#(composed)": 2, "\#(decomposed)": 1}"#), forKey: "twins")
        await #expect(try await store.value(forKey: "twins") == first)
    }

    @Test func concurrentWritesOfAKeyResolveLastWriterWinsOnEveryDevice() async throws {
        let fixture = try Fixture(devices: 2)
        try await fixture[1].keyValueStore.set(json("\"first\""), forKey: "color")
        try await fixture.syncAll(rounds: 1)
        try await fixture[1].keyValueStore.set(json("\"from 1\""), forKey: "color")
        try await fixture[1].keyValueStore.set(json("true"), forKey: "only-on-1")
        try await Task.sleep(for: .milliseconds(5))
        try await fixture[2].keyValueStore.set(json("\"from 2, later\""), forKey: "color")
        try await fixture.syncAll()
        for device in fixture.devices {
            await #expect(try device.keyValueStore.value(forKey: "color") == json("\"from 2, later\""))
            await #expect(try device.keyValueStore.value(forKey: "only-on-1") == json("true"))
            await #expect(try device.conflicts().isEmpty)
        }
        #expect(try fixture.mainTree(1) == fixture.mainTree(2))
    }

    @Test func changesFromOtherDevicesCarryApplesReasons() async throws {
        let fixture = try Fixture(devices: 2)
        let first = fixture[1].keyValueStore.changes(), second = fixture[2].keyValueStore.changes()
        try await fixture[2].keyValueStore.set(json("1"), forKey: "a")
        try await fixture.syncAll()
        // The store's maker and a clone both started from the cloud's store: a server change.
        #expect(await next(first) == KeyValueChange(reason: .serverChange, keys: ["a"]))
        try await fixture[1].keyValueStore.set(json("2"), forKey: "b")
        try await fixture[1].sync()
        try await fixture[2].sync()
        #expect(await next(second) == KeyValueChange(reason: .serverChange, keys: ["b"]))
        // The cloud moved (Apple's account switch): what the first sync there brings is the
        // initial download.
        try await fixture[1].keyValueStore.set(json("3"), forKey: "c")
        try await fixture[1].sync()
        let other = fixture.folder + "/moved.git"
        try FileManager.default.copyItem(atPath: fixture.cloud, toPath: other)
        try await fixture[2].setCloud(other)
        #expect(await next(second)?.reason == .accountChange)
        try await fixture[2].sync()
        #expect(await next(second) == KeyValueChange(reason: .initialSyncChange, keys: ["c"]))
    }

    @Test func adoptAndEvictMoveDocumentsInAndOutWithoutLoss() throws {
        let fixture = try Fixture(devices: 1)
        let local = fixture.folder + "/local-only"
        try FileManager.default.createDirectory(atPath: local, withIntermediateDirectories: true)
        try "kept locally".write(toFile: local + "/draft.txt", atomically: true, encoding: .utf8)
        try fixture[1].adopt(fileAt: local + "/draft.txt", as: doc("drafts/draft.txt"))
        #expect(!FileManager.default.fileExists(atPath: local + "/draft.txt"))
        #expect(try string(fixture[1].content(of: doc("drafts/draft.txt"))) == "kept locally")
        try fixture[1].evict(doc("drafts/draft.txt"), to: local + "/back.txt")
        #expect(try String(contentsOfFile: local + "/back.txt", encoding: .utf8) == "kept locally")
        #expect(try fixture[1].versions(of: doc("drafts/draft.txt")).first?.isDeleted == true)
        #expect(throws: ConcordError.self) { try fixture[1].adopt(fileAt: local + "/missing.txt", as: doc("x.txt")) }
        #expect(throws: ConcordError.self) { try fixture[1].adopt(fileAt: fixture[1].root + "/.concord/packages", as: doc("x.txt")) }
        try fixture[1].save(doc("y.txt"), content: text("y"))
        #expect(throws: ConcordError.self) { try fixture[1].evict(doc("y.txt"), to: local + "/back.txt") }
        #expect(try string(fixture[1].content(of: doc("y.txt"))) == "y")
    }
}
