/// git's rules for a reference's name (`git check-ref-format`, libgit2's
/// `git_reference_name_is_valid`), for names a server sends or this side writes to one.
package enum ReferenceName {
    /// True when `name` is a full reference name git accepts: two or more components separated
    /// by `/`, none empty, starting with `.` or ending with `.lock`; no `..`, no `@{`, no control
    /// character, space, `~`, `^`, `:`, `?`, `*`, `[` or `\`; not ending with `.`; not `@`.
    package static func isValid<Bytes: Collection<UInt8>>(_ name: Bytes) -> Bool {
        let bytes = Array(name)
        guard bytes != [UInt8(ascii: "@")], bytes.last != UInt8(ascii: ".") else { return false }
        let forbidden = Set(" ~^:?*[\\".utf8)
        for (index, byte) in bytes.enumerated() {
            if byte < 0x20 || byte == 0x7F || forbidden.contains(byte) { return false }
            let following = index + 1 < bytes.count ? bytes[index + 1] : nil
            if byte == UInt8(ascii: "."), following == UInt8(ascii: ".") { return false }
            if byte == UInt8(ascii: "@"), following == UInt8(ascii: "{") { return false }
        }
        let components = bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        guard components.count >= 2 else { return false }
        return components.allSatisfy { component in
            !component.isEmpty && component.first != UInt8(ascii: ".") && !component.reversed().starts(with: "kcol.".utf8)
        }
    }
}
