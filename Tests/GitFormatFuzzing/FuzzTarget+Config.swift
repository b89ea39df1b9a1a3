internal import GitFormat

extension FuzzTarget {
    /// A repository's configuration file. Input: the file's bytes.
    ///
    /// ``ConfigFile`` must refuse the bytes or read them; read twice, they give the same values;
    /// and a file it read, followed by a section of its own (`[concordfuzz]` with `key = value`),
    /// must read too, giving that value and leaving what the file alone gives unchanged (a value
    /// never runs past the end of its file into the next one).
    static func config(_ raw: UnsafeRawBufferPointer) throws(FuzzFailure) {
        let bytes = Array(raw)
        guard let file = try? ConfigFile(bytes) else { return }
        let keys = ["core.bare", "concord.devicename", "remote.origin.url", "a.b.k", "a.b.flag", "a.b.cont"]
        let again = try? ConfigFile(bytes)
        try expect(keys.allSatisfy { again?.value($0) == file.value($0) }, "a second read gave other values")
        guard let extended = try? ConfigFile(bytes + Array("\n[concordfuzz]\n\tkey = value\n".utf8)) else {
            throw FuzzFailure("a file that reads did not read with a section added after it")
        }
        try expect(extended.value("concordfuzz.key") == "value", "the added section's value was read as \(String(describing: extended.value("concordfuzz.key")))")
        for key in keys {
            try expect(extended.value(key) == file.value(key), "\(key) changed when a section was added after the file")
        }
    }
}
