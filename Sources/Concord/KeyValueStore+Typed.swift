public import Foundation

/// Typed access, as NSUbiquitousKeyValueStore has it: Codable values, and the primitive getters
/// with Apple's answers for a key that is not set (nil, `false`, `0`). Every value is stored as
/// JSON, so another device (or `concord kv get`) reads the same text.
extension KeyValueStore {
    /// Sets `key` to `value` encoded as JSON (object keys sorted, so equal values are equal text).
    /// - Throws: ``ConcordError/keyValue(_:)`` naming the key when it cannot be encoded or is
    ///   past the limits; nothing changes then.
    public func set(_ value: some Encodable, forKey key: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data: Data
        do {
            data = try encoder.encode(value)
        } catch {
            throw ConcordError.keyValue("the value of '\(key)' cannot be encoded as JSON: \(error)")
        }
        try set(data, forKey: key)
    }

    /// The value of `key` decoded as `type`; nil when the key is not set.
    /// - Throws: ``ConcordError/keyValue(_:)`` naming the key and the type when the stored JSON
    ///   is not a `type`.
    public func value<T: Decodable>(_ type: T.Type, forKey key: String) throws -> T? {
        guard let data = try value(forKey: key) else { return nil }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw ConcordError.keyValue("the value of '\(key)' is not a \(T.self): \(String(decoding: data.prefix(80), as: UTF8.self))")
        }
    }

    /// Stores bytes under `key` (as a base64 JSON string).
    public func set(data: Data, forKey key: String) throws {
        try set(data.base64EncodedString(), forKey: key)
    }

    /// The bytes stored with ``set(data:forKey:)``; nil when the key is not set or holds no bytes.
    public func data(forKey key: String) throws -> Data? {
        try optional(String.self, key).flatMap { Data(base64Encoded: $0) }
    }

    /// The string of `key`; nil when it is not set or not a string.
    public func string(forKey key: String) throws -> String? {
        try optional(String.self, key)
    }

    /// The Boolean of `key`; false when it is not set or not a Boolean.
    public func bool(forKey key: String) throws -> Bool {
        try optional(Bool.self, key) ?? false
    }

    /// The number of `key`; 0 when it is not set or not a number.
    public func double(forKey key: String) throws -> Double {
        try optional(Double.self, key) ?? 0
    }

    /// The integer of `key`; 0 when it is not set or not an integer.
    public func longLong(forKey key: String) throws -> Int64 {
        try optional(Int64.self, key) ?? 0
    }

    /// The value of `key` as `type`, nil when it is another kind of value; errors reading the
    /// store still throw.
    private func optional<T: Decodable>(_ type: T.Type, _ key: String) throws -> T? {
        guard let data = try value(forKey: key) else { return nil }
        return try? JSONDecoder().decode(T.self, from: data)
    }
}
