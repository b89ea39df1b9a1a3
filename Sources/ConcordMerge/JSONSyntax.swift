internal import GitFormat

/// A parsed JSON value with where each part sits in its source bytes, so that a merge can copy
/// unchanged parts exactly as they were written.
struct JSONSyntax: Sendable {
    /// The value.
    var value: JSONValue
    /// Its byte range in the source.
    var range: Range<Int>
    /// Array elements, or object member values in order.
    var children: [JSONSyntax]

    /// The child for an object member, by key.
    func child(forKey key: String) -> JSONSyntax? {
        guard case let .object(members) = value,
            let index = members.firstIndex(where: { $0.key.sameBytes(as: key) })
        else { return nil }
        return children[index]
    }
}
