internal import FoundationEssentials
package import GitFormat
internal import Glibc

/// One pack of an object store.
public struct PackFile: Sendable, Equatable {
    /// The file name of the pack, `pack-<hash>.pack`.
    public var name: String
    /// How many objects it holds (from its index).
    public var objectCount: Int
    /// Its size on disk, pack and index together.
    public var bytes: Int

    /// Describes a pack.
    public init(name: String, objectCount: Int, bytes: Int) {
        self.name = name
        self.objectCount = objectCount
        self.bytes = bytes
    }
}

extension ObjectStore {
    /// The packs, smallest first.
    package func packFiles() -> [PackFile] {
        let folder = path + "pack"
        let names = RegularFile.names(in: folder)
        return names.filter { $0.hasPrefix("pack-") && $0.hasSuffix(".pack") }.compactMap { name in
            let stem = String(name.dropLast(".pack".count))
            guard let count = Self.objectCount(ofIndex: "\(folder)/\(stem).idx") else { return nil }
            let bytes = [".pack", ".idx"].reduce(0) { total, suffix in
                total + (RegularFile.size(of: "\(folder)/\(stem)\(suffix)") ?? 0)
            }
            return PackFile(name: name, objectCount: count, bytes: bytes)
        }.sorted { ($0.objectCount, $0.name) < ($1.objectCount, $1.name) }
    }

    /// The loose objects.
    package func looseObjects() -> [OID] {
        var result: [OID] = []
        // The folders there are, rather than 256 attempts (a store kept small has few).
        let folders = RegularFile.names(in: path).filter {
            $0.utf8.count == 2 && $0.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
        }
        for prefix in folders.sorted() {
            let names = RegularFile.names(in: "\(path)\(prefix)")
            for name in names where name.count == 38 {
                if let id = OID(hex: prefix + name) { result.append(id) }
            }
        }
        return result
    }

    /// Removes the loose files of `ids`, and their folders once empty.
    package func removeLooseObjects(_ ids: [OID]) {
        var folders = Set<String>()
        for id in ids {
            let hex = id.hex
            unlink("\(path)\(hex.prefix(2))/\(hex.dropFirst(2))")
            folders.insert("\(path)\(hex.prefix(2))")
        }
        for folder in folders { rmdir(folder) }
    }

    /// Removes the packs `names` (`pack-….pack`): each index first, so that no reader finds an
    /// index without its pack. Call only while holding a lock that keeps every other writer out.
    package func removePacks(_ names: [String]) {
        for name in names {
            let stem = "\(path)pack/\(name.dropLast(".pack".count))"
            for suffix in [".idx", ".rev", ".bitmap", ".pack"] { unlink(stem + suffix) }
        }
        refresh()
    }

    /// Removes the temporary files a writer killed while writing objects left behind: loose
    /// objects' (`objects/tmp_object_git2_*`, Concord's and libgit2's), packs' being indexed
    /// (`objects/pack/pack_git2_*`), `*.lock` beside a pack's index, and `*.tmp-<pid>` beside a
    /// pack Concord stores. Call only while holding a lock that keeps every other writer of
    /// this store out: then none of them is being written.
    /// - Returns: how many files were removed.
    @discardableResult
    package func removeTemporaryFiles() -> Int {
        var removed = 0
        let folders = [
            ("", { (name: String) in name.hasPrefix("tmp_object_git2_") }),
            ("pack/", { (name: String) in name.hasPrefix("pack_git2_") || name.hasSuffix(".lock") || name.contains(".tmp-") }),
        ]
        for (folder, isTemporary) in folders {
            let at = path + folder
            for name in RegularFile.names(in: at) where isTemporary(name) {
                if unlink(at + name) == 0 { removed += 1 }
            }
        }
        return removed
    }

    /// The number of objects a version-2 pack index lists (``PackIndex``, its header only); nil
    /// when the file is not a regular file holding such an index.
    package static func objectCount(ofIndex path: String) -> Int? {
        guard let file = try? RegularFile.open(path) else { return nil }
        defer { close(file.descriptor) }
        var header = [UInt8](repeating: 0, count: PackIndex.headerSize)
        let got = header.withUnsafeMutableBytes { pread(file.descriptor, $0.baseAddress, $0.count, 0) }
        guard got == header.count else { return nil }
        return header.withUnsafeBytes { PackIndex.count(fromHeader: $0) }
    }

    /// The ids a pack index lists, read and checked whole (``PackIndex``).
    /// - Throws: ``StoreError`` when it cannot be read or is damaged.
    package static func objectIDs(ofIndex path: String) throws -> [OID] {
        let bytes = try RegularFile.read(path, largest: .max)
        return try bytes.withUnsafeBytes { buffer in
            let index = try readingFormat(file: path) { try PackIndex(validating: buffer) }
            return (0..<index.count).map(index.id(at:))
        }
    }
}
