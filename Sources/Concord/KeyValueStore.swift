public import FoundationEssentials
internal import ConcordMerge
internal import Git
internal import GitFormat
internal import Synchronization

/// A small key-value store kept in the container and synced with it (the
/// NSUbiquitousKeyValueStore role): string keys of at most 64 bytes to JSON values, at most
/// 1,024 keys and 1 MB in all, last writer wins per key by the same hybrid logical clock as
/// documents. Changes made by other devices are told with their reason.
public final class KeyValueStore: Sendable {
    /// The longest key, in UTF-8 bytes.
    public static let maximumKeyLength = 64
    /// The most keys the store holds.
    public static let maximumKeyCount = 1_024
    /// The most bytes the store holds: keys and values together.
    public static let maximumTotalSize = 1_048_576

    let container: Container

    init(container: Container) { self.container = container }

    /// The JSON value of `key`; nil when the key is not set.
    @available(*, noasync, message: "blocks on disk: from async code, await the async form")
    public func value(forKey key: String) throws -> Data? {
        try container.read { try $0.keyValues()[key] }
    }

    /// The async form of the call above: the same work on a queue of its own (``Blocking``), so that the caller's
    /// executor (the main actor of an app) never waits on disk.
    public func value(forKey key: String) async throws -> Data? {
        try await container.background { try self.value(forKey: key) }
    }

    /// Every key and its JSON value.
    @available(*, noasync, message: "blocks on disk: from async code, await the async form")
    public func dictionary() throws -> [String: Data] {
        try container.read { try $0.keyValues() }
    }

    /// The async form of the call above: the same work on a queue of its own (``Blocking``), so that the caller's
    /// executor (the main actor of an app) never waits on disk.
    public func dictionary() async throws -> [String: Data] {
        try await container.background { try self.dictionary() }
    }

    /// Sets `key` to the JSON `value` (any JSON text: object, array, string, number, true, false,
    /// null). A `Data` argument is this raw form; `set(_:forKey:)` with any other `Encodable`
    /// encodes it, and ``set(data:forKey:)`` stores bytes.
    /// - Throws: ``ConcordError/keyValue(_:)`` for a key or value past the limits or invalid JSON; nothing changes then.
    @available(*, noasync, message: "blocks on disk: from async code, await the async form")
    public func set(_ value: Data, forKey key: String) throws {
        try set([key: value])
    }

    /// The async form of the call above: the same work on a queue of its own (``Blocking``), so that the caller's
    /// executor (the main actor of an app) never waits on disk.
    public func set(_ value: Data, forKey key: String) async throws {
        try await container.background { try self.set(value, forKey: key) }
    }

    /// Sets several keys at once, in one commit (all or none).
    @available(*, noasync, message: "blocks on disk: from async code, await the async form")
    public func set(_ values: [String: Data]) throws {
        try container.write(.saved) { try $0.setKeyValues(values.mapValues { Optional($0) }) }
    }

    /// The async form of the call above: the same work on a queue of its own (``Blocking``), so that the caller's
    /// executor (the main actor of an app) never waits on disk.
    public func set(_ values: [String: Data]) async throws {
        try await container.background { try self.set(values) }
    }

    /// Removes `key` (nothing happens when it is not set).
    @available(*, noasync, message: "blocks on disk: from async code, await the async form")
    public func removeValue(forKey key: String) throws {
        try container.write(.saved) { try $0.setKeyValues([key: nil]) }
    }

    /// The async form of the call above: the same work on a queue of its own (``Blocking``), so that the caller's
    /// executor (the main actor of an app) never waits on disk.
    public func removeValue(forKey key: String) async throws {
        try await container.background { try self.removeValue(forKey: key) }
    }

    /// Changes made by other devices (or that the store's limits were passed), from now on.
    /// The stream ends when its consumer stops iterating.
    public func changes() -> AsyncStream<KeyValueChange> {
        let (stream, continuation) = AsyncStream.makeStream(of: KeyValueChange.self, bufferingPolicy: .unbounded)
        let container = container
        let id = container.observer.subscribe { move in
            guard move.moved else { return }
            guard
                let (changed, firstSeen, values) = try? container.withCore({ core -> ([(key: String, external: Bool)], Bool, [String: Data]) in
                    let changed = try core.changedKeys(from: move.old, to: move.new)
                    let external = changed.contains { $0.external }
                    let settings = DeviceSettings(repository: core.repository)
                    let firstSeen = try external && !settings.keyValueStoreHasSeenCloud()
                    if firstSeen { try settings.setKeyValueStoreHasSeenCloud(true) }
                    return (changed, firstSeen, try core.keyValues())
                })
            else { return }
            let external = changed.filter(\.external).map(\.key).sorted()
            if !external.isEmpty {
                continuation.yield(KeyValueChange(reason: firstSeen ? .initialSyncChange : .serverChange, keys: external))
            }
            if !changed.isEmpty, (try? KeyValueStore.checkQuota(values)) == nil {
                continuation.yield(KeyValueChange(reason: .quotaViolationChange, keys: values.keys.sorted()))
            }
        }
        continuation.onTermination = { _ in container.observer.unsubscribe(id) }
        container.keyValueContinuations.withLock { $0[id] = continuation }
        return stream
    }

    static func check(key: String) throws {
        if key.isEmpty { throw ConcordError.keyValue("a key cannot be empty") }
        if key.utf8.count > maximumKeyLength {
            throw ConcordError.keyValue("the key '\(key.prefix(20))…' has \(key.utf8.count) bytes; at most \(maximumKeyLength) are allowed")
        }
        if key.unicodeScalars.contains(where: { PathRules.isControl($0) || $0 == "\u{FFFD}" }) {
            throw ConcordError.keyValue("a key cannot hold control characters or invalid UTF-8")
        }
        if key == "." || key == ".." || PathRules.isDotGit(Substring(key)) {
            throw ConcordError.keyValue("the key '\(key)' cannot be stored: git reserves that name")
        }
    }

    static func canonicalJSON(_ value: Data, key: String) throws -> Data {
        do {
            return canonicalText(try JSONValue(parsing: value))
        } catch {
            throw ConcordError.keyValue("the value of '\(key)' is not valid JSON: \(error)")
        }
    }

    /// `value` as the store keeps it, whoever wrote it how: on one line, without spaces, each
    /// object's members in the order of their names' bytes (two names that differ by Unicode
    /// normalization alone are equal to `String`'s `<`, which kept them as written).
    static func canonicalText(_ value: JSONValue) -> Data {
        func sorted(_ value: JSONValue) -> JSONValue {
            switch value {
            case let .array(elements): .array(elements.map(sorted))
            case let .object(members): .object(members.sorted { $0.key.bytesPrecede($1.key) }.map { JSONMember(key: $0.key, value: sorted($0.value)) })
            default: value
            }
        }
        return sorted(value).text(style: .compact)
    }

    static func checkQuota(_ values: [String: Data]) throws {
        if values.count > maximumKeyCount {
            throw ConcordError.keyValue("the store would hold \(values.count) keys; at most \(maximumKeyCount) are allowed")
        }
        let total = values.reduce(0) { $0 + $1.key.utf8.count + $1.value.count }
        if total > maximumTotalSize {
            throw ConcordError.keyValue("the store would hold \(total) bytes; at most \(maximumTotalSize) (1 MB) are allowed")
        }
    }
}

/// A change of the key-value store made elsewhere, with its reason (as NSUbiquitousKeyValueStore tells).
public struct KeyValueChange: Sendable, Hashable {
    /// Why the store changed.
    public enum Reason: String, Sendable, Hashable {
        /// Another device changed keys, and a sync brought the change.
        case serverChange
        /// The first sync after this device joined another cloud (``Container/setCloud(_:)``,
        /// Apple's account switch) brought keys: the cloud's values replace what this device held
        /// (Apple's initial download). A clone starts with the cloud's store as it is, and the
        /// device that made a store is its first: neither sees this reason.
        case initialSyncChange
        /// The store is over its limits (two devices' writes together passed them): remove keys.
        case quotaViolationChange
        /// The container's cloud changed: the store's keys may belong to another account.
        case accountChange
    }

    /// Why.
    public var reason: Reason
    /// The keys concerned.
    public var keys: [String]

    /// Creates a change.
    public init(reason: Reason, keys: [String]) {
        self.reason = reason
        self.keys = keys
    }
}

extension Container {
    /// The container's key-value store.
    public var keyValueStore: KeyValueStore { KeyValueStore(container: self) }
}
