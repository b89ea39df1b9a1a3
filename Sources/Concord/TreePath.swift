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
    static func < (lhs: TreePath, rhs: TreePath) -> Bool { lhs.value.utf8.lexicographicallyPrecedes(rhs.value.utf8) }

    /// True when `a` and `b` hold the same bytes (not merely canonically equivalent text).
    static func sameBytes(_ a: some StringProtocol, _ b: some StringProtocol) -> Bool {
        a.utf8.count == b.utf8.count && a.utf8.elementsEqual(b.utf8)
    }

    /// Feeds the bytes of `text` to `hasher`, so that a hash agrees with ``sameBytes(_:_:)``.
    static func hashBytes(_ text: String, into hasher: inout Hasher) {
        let hashed: Void? = text.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        if hashed == nil {
            for byte in text.utf8 { hasher.combine(byte) }
        }
        hasher.combine(text.utf8.count)
    }
}
