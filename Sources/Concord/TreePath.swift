internal import GitFormat

/// A slash-separated path in a tree, compared, hashed and ordered by its UTF-8 bytes, as git
/// and Linux file systems tell names apart.
///
/// Swift's `String` compares by canonical equivalence: `café` written with `é` (NFC) and with
/// `e` and a combining accent (NFD) are equal strings, one key of a `Set` or a `Dictionary`.
/// They are two names in a tree, and two documents: every collection of paths is keyed by
/// this type (or by ``DocumentPath``, which compares the same way), never by `String`.
typealias TreePath = ExactText
