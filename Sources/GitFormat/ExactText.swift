/// Text compared, hashed and ordered by its UTF-8 bytes, as git and Linux file systems tell
/// names apart, and as JSON tells member names and strings apart (RFC 8259 compares them code
/// unit by code unit).
///
/// Swift's `String` compares by canonical equivalence: `café` written with `é` (NFC) and with
/// `e` and a combining accent (NFD) are equal strings, one key of a `Set` or a `Dictionary`.
/// They are two names in a tree and two member names in a JSON object, so a collection of such
/// names is keyed by this type, never by `String`.
package struct ExactText: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The text, bytes as given.
    package let value: String

    /// The text `value`, compared by its bytes.
    package init(_ value: String) { self.value = value }

    /// The text `value`, compared by its bytes.
    package init(_ value: Substring) { self.value = String(value) }

    package var description: String { value }

    package static func == (lhs: ExactText, rhs: ExactText) -> Bool { lhs.value.sameBytes(as: rhs.value) }

    package func hash(into hasher: inout Hasher) { value.hashBytes(into: &hasher) }

    /// Orders by bytes, as git orders names.
    package static func < (lhs: ExactText, rhs: ExactText) -> Bool { lhs.value.bytesPrecede(rhs.value) }
}

extension String {
    /// True when both hold the same UTF-8 bytes (not merely canonically equivalent text, which
    /// is what `==` tells).
    package func sameBytes(as other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        return withBytes { x in
            other.withBytes { y in
                var index = 0
                while index < x.count {
                    if x[index] != y[index] { return false }
                    index += 1
                }
                return true
            }
        }
    }

    /// True when the UTF-8 bytes of this text come before those of `other` (a prefix first).
    package func bytesPrecede(_ other: String) -> Bool {
        withBytes { x in
            other.withBytes { y in
                var index = 0
                while index < x.count && index < y.count {
                    if x[index] != y[index] { return x[index] < y[index] }
                    index += 1
                }
                return x.count < y.count
            }
        }
    }

    /// Feeds the UTF-8 bytes to `hasher`, so that a hash agrees with ``sameBytes(as:)``.
    package func hashBytes(into hasher: inout Hasher) {
        withBytes { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        hasher.combine(utf8.count)
    }

    /// Calls `body` with the UTF-8 bytes (a native string's own storage, not a copy).
    private func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        var text = self
        return text.withUTF8(body)
    }
}
