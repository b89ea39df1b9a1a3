public import FoundationEssentials

/// Typed access, as NSUbiquitousKeyValueStore has it: Codable values, and the primitive getters
/// with Apple's answers for a key that is not set (nil, `false`, `0`). Every value is stored as
/// JSON, so another device (or `concord kv get`) reads the same text. Each call has a blocking
/// form, for code that is not async, and an async form that waits off the caller's executor.
extension KeyValueStore {
    /// Sets `key` to `value` encoded as JSON (object keys sorted, so equal values are equal text).
    /// - Throws: ``ConcordError/keyValue(_:)`` naming the key when it cannot be encoded or is
    ///   past the limits; nothing changes then.
    @available(*, noasync, message: "blocks on disk: from async code, await the async form")
    public func set(_ value: some Encodable, forKey key: String) throws {
        try set(Self.encoded(value, key), forKey: key)
    }

    /// The async form of the blocking `set(_:forKey:)` above.
    public func set(_ value: some Encodable, forKey key: String) async throws {
        try await set(Self.encoded(value, key), forKey: key)
    }

    /// The value of `key` decoded as `type`; nil when the key is not set.
    /// - Throws: ``ConcordError/keyValue(_:)`` naming the key and the type when the stored JSON
    ///   is not a `type`.
    @available(*, noasync, message: "blocks on disk: from async code, await the async form")
    public func value<T: Decodable>(_ type: T.Type, forKey key: String) throws -> T? {
        try value(forKey: key).map { try Self.decoded(type, $0, key) }
    }

    /// The async form of the blocking `value(_:forKey:)` above.
    public func value<T: Decodable>(_ type: T.Type, forKey key: String) async throws -> T? {
        try await value(forKey: key).map { try Self.decoded(type, $0, key) }
    }

    /// Stores bytes under `key` (as a base64 JSON string).
    @available(*, noasync, message: "blocks on disk: from async code, await the async form")
    public func set(data: Data, forKey key: String) throws {
        try set(data.base64EncodedString(), forKey: key)
    }

    /// The async form of ``set(data:forKey:)``.
    public func set(data: Data, forKey key: String) async throws {
        try await set(data.base64EncodedString(), forKey: key)
    }

    /// The bytes stored with ``set(data:forKey:)``; nil when the key is not set or holds no bytes.
    @available(*, noasync, message: "blocks on disk: from async code, await the async form")
    public func data(forKey key: String) throws -> Data? {
        try optional(String.self, key).flatMap { Data(base64Encoded: $0) }
    }

    /// The async form of ``data(forKey:)``.
    public func data(forKey key: String) async throws -> Data? {
        try await optional(String.self, key).flatMap { Data(base64Encoded: $0) }
    }

    /// The string of `key`; nil when it is not set or not a string.
    @available(*, noasync, message: "blocks on disk: from async code, await the async form")
    public func string(forKey key: String) throws -> String? {
        try optional(String.self, key)
    }

    /// The async form of ``string(forKey:)``.
    public func string(forKey key: String) async throws -> String? {
        try await optional(String.self, key)
    }

    /// The Boolean of `key`; false when it is not set or not a Boolean.
    @available(*, noasync, message: "blocks on disk: from async code, await the async form")
    public func bool(forKey key: String) throws -> Bool {
        try optional(Bool.self, key) ?? false
    }

    /// The async form of ``bool(forKey:)``.
    public func bool(forKey key: String) async throws -> Bool {
        try await optional(Bool.self, key) ?? false
    }

    /// The number of `key`; 0 when it is not set or not a number.
    @available(*, noasync, message: "blocks on disk: from async code, await the async form")
    public func double(forKey key: String) throws -> Double {
        try optional(Double.self, key) ?? 0
    }

    /// The async form of ``double(forKey:)``.
    public func double(forKey key: String) async throws -> Double {
        try await optional(Double.self, key) ?? 0
    }

    /// The integer of `key`; 0 when it is not set or not an integer.
    @available(*, noasync, message: "blocks on disk: from async code, await the async form")
    public func longLong(forKey key: String) throws -> Int64 {
        try optional(Int64.self, key) ?? 0
    }

    /// The async form of ``longLong(forKey:)``.
    public func longLong(forKey key: String) async throws -> Int64 {
        try await optional(Int64.self, key) ?? 0
    }

    /// The value of `key` as `type`, nil when it is another kind of value; errors reading the
    /// store still throw.
    @available(*, noasync)
    private func optional<T: Decodable>(_ type: T.Type, _ key: String) throws -> T? {
        try value(forKey: key).flatMap { try? JSONDecoder().decode(T.self, from: $0) }
    }

    /// The async form of ``optional(_:_:)``.
    private func optional<T: Decodable>(_ type: T.Type, _ key: String) async throws -> T? {
        try await value(forKey: key).flatMap { try? JSONDecoder().decode(T.self, from: $0) }
    }

    /// `value` as JSON, object keys sorted, so that equal values are equal text.
    private static func encoded(_ value: some Encodable, _ key: String) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(value)
        } catch {
            throw ConcordError.keyValue("the value of '\(key)' cannot be encoded as JSON: \(error)")
        }
    }

    /// The stored JSON of `key` as a `type`.
    private static func decoded<T: Decodable>(_ type: T.Type, _ data: Data, _ key: String) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw ConcordError.keyValue("the value of '\(key)' is not a \(T.self): \(String(decoding: data.prefix(80), as: UTF8.self))")
        }
    }
}
