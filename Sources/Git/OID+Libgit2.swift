internal import CGit2
internal import GitFormat

extension OID {
    /// The id libgit2 holds in `oid`.
    init(_ oid: git_oid) {
        var copy = oid
        self = Swift.withUnsafeBytes(of: &copy.id) { OID(unchecked: $0) }
    }

    /// The id as libgit2 holds it.
    var raw: git_oid {
        var oid = git_oid()
        withUnsafeMutableBytes(of: &oid.id) { target in
            withUnsafeBytes { target.copyMemory(from: $0) }
        }
        return oid
    }
}
