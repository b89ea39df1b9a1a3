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

extension ObjectType {
    /// The type libgit2 calls `type`; nil for any other (`GIT_OBJECT_ANY`, a delta).
    init?(_ type: git_object_t) {
        guard type.rawValue > 0, type.rawValue <= 4, let known = ObjectType(rawValue: UInt8(type.rawValue)) else { return nil }
        self = known
    }
}

extension git_object_t {
    /// libgit2's number for `type`.
    init(_ type: ObjectType) { self.init(rawValue: Int32(type.rawValue)) }
}
