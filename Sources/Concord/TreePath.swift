/// A slash-separated path in a tree, compared, hashed and ordered by its UTF-8 bytes, as git
/// and Linux file systems tell names apart.
///
/// Swift's `String` compares by canonical equivalence: `café` written with `é` (NFC) and with
/// `e` and a combining accent (NFD) are equal strings, one key of a `Set` or a `Dictionary`.
/// They are two names in a tree, and two documents: every collection of paths is keyed by
/// this type (or by ``DocumentPath``, which compares the same way), never by `String`.
struct TreePath: Hashable, Comparable, CustomStringConvertible {
    /// The path's text, bytes as given.
    let value: String

    init(_ value: String) { self.value = value }

    init(_ value: Substring) { self.value = String(value) }

    var description: String { value }

    static func == (lhs: TreePath, rhs: TreePath) -> Bool { sameBytes(lhs.value, rhs.value) }

    func hash(into hasher: inout Hasher) { Self.hashBytes(value, into: &hasher) }

    /// Orders by bytes, as git orders names.
    static func < (lhs: TreePath, rhs: TreePath) -> Bool { precedes(lhs.value, rhs.value) }

    /// True when `a` and `b` hold the same bytes (not merely canonically equivalent text).
    static func sameBytes(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        return withBytes(a) { x in
            withBytes(b) { y in
                var index = 0
                while index < x.count {
                    if x[index] != y[index] { return false }
                    index += 1
                }
                return true
            }
        }
    }

    /// True when the bytes of `a` come before those of `b` (a prefix first).
    static func precedes(_ a: String, _ b: String) -> Bool {
        withBytes(a) { x in
            withBytes(b) { y in
                var index = 0
                while index < x.count && index < y.count {
                    if x[index] != y[index] { return x[index] < y[index] }
                    index += 1
                }
                return x.count < y.count
            }
        }
    }

    /// Feeds the bytes of `text` to `hasher`, so that a hash agrees with ``sameBytes(_:_:)``.
    static func hashBytes(_ text: String, into hasher: inout Hasher) {
        withBytes(text) { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        hasher.combine(text.utf8.count)
    }

    /// Calls `body` with the UTF-8 bytes of `text` (a native string's own storage, not a copy).
    private static func withBytes<Result>(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        var text = text
        return text.withUTF8(body)
    }
}
