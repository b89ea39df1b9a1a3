internal import Foundation
package import GitFormat

/// The objects of a repository that someone else controls (a cloud on this machine), read by
/// Concord alone: libgit2 never opens its files, and nothing in it is trusted before it is
/// checked.
///
/// Packs are read through ``StoredPack`` (the index checked whole, the pack's header and
/// trailer against it, every offset and header when read); loose objects only as regular files
/// of bounded size; every object's declared size is checked against ``largestObject`` before
/// anything is inflated or rebuilt; delta chains are followed in a loop, across packs, with a
/// bound on their length and a check for loops. `objects/info/alternates` is never read: an
/// object is served from this folder or not at all. libgit2 reads these objects (to walk
/// commits, parse trees) only through `Repository.openCloud(at:largestObject:)` (in `Git`), whose
/// object database is this folder.
package final class ObjectFolder {
    /// An object's type and bytes.
    package struct Object {
        /// A whole object's type (commit, tree, blob or tag).
        package var type: ObjectType
        /// Its bytes.
        package var bytes: [UInt8]
    }

    /// The `objects/` folder, with a trailing slash.
    package let path: String
    /// Its packs.
    package let packs: StoredPacks
    /// The largest object read, in bytes.
    package let largestObject: Int

    /// The folder `path` (a repository's `objects/`, with a trailing slash).
    package init(path: String, largestObject: Int) {
        self.path = path
        self.largestObject = largestObject
        packs = StoredPacks(folder: path + "pack/")
    }

    /// The object `id`.
    /// - Throws: ``StoreError``: ``StoreError/Kind/notFound`` when the folder does not hold it,
    ///   ``StoreError/Kind/overLimit`` when it claims more than ``largestObject`` bytes, else damage.
    package func read(_ id: OID) throws -> Object {
        if let (pack, entry) = packs.locate(id) { return try readPacked(pack, entry) }
        if let loose = try readLoose(id) { return loose }
        throw notFound(id)
    }

    /// The type and size of the object `id`, read from its header where that says them.
    /// - Throws: as ``read(_:)``.
    package func header(of id: OID) throws -> (type: ObjectType, size: Int) {
        if let (pack, entry) = packs.locate(id) {
            let header = try pack.header(of: entry)
            if header.base == nil, let type = Pack.EntryType(rawValue: header.type)?.object { return (type, header.size) }
            let object = try readPacked(pack, entry)
            return (object.type, object.bytes.count)
        }
        let file = try looseFile(id)
        guard let file else { throw notFound(id) }
        let head = try readingFormat(file: file.path) {
            try file.bytes.withUnsafeBytes { bytes in
                let inflater = try Zlib.Inflater(bytes)
                var head = [UInt8](repeating: 0, count: 32)
                let got = try inflater.fill(&head)
                return try LooseObject.header(head.prefix(got))
            }
        }
        return (head.type, head.size)
    }

    /// True when the folder holds `id` (in a pack, or as a loose file).
    package func contains(_ id: OID) -> Bool {
        packs.locate(id) != nil || RegularFile.exists(loosePath(id))
    }

    /// Lists the packs again when they changed.
    package func refresh() { _ = packs.refreshIfChanged() }

    // MARK: Pieces

    private struct Place: Hashable {
        package var pack: ObjectIdentifier
        package var start: Int
    }

    /// A packed object, its chain of deltas followed down to a whole object (in a loop: the
    /// chain comes from someone else), then applied back up.
    private func readPacked(_ pack: StoredPack, _ entry: StoredPack.Entry) throws -> Object {
        var chain: [(pack: StoredPack, entry: StoredPack.Entry, header: StoredPack.Header)] = []
        var seen = Set<Place>()
        var current = (pack: pack, entry: entry)
        var object: Object
        while true {
            guard seen.insert(Place(pack: ObjectIdentifier(current.pack), start: current.entry.start)).inserted else {
                throw damaged(entry.id, "its deltas loop")
            }
            guard chain.count <= PackWriter.deepestRead else { throw damaged(entry.id, "its deltas go deeper than \(PackWriter.deepestRead)") }
            let header = try current.pack.header(of: current.entry)
            guard let base = header.base else {
                guard let type = Pack.EntryType(rawValue: header.type)?.object else { throw damaged(entry.id, "its base has no type") }
                object = Object(type: type, bytes: try current.pack.contents(current.entry, header: header, largest: largestObject).data)
                break
            }
            chain.append((current.pack, current.entry, header))
            if let next = try current.pack.entry(of: base) {
                current = (current.pack, next)
            } else if let found = packs.locate(base) {
                current = found
            } else if let loose = try readLoose(base) {
                object = loose
                break
            } else {
                throw StoreError(.notFound, "object \(entry.id.hex) is a delta against \(base.hex), which is missing\(packs.problemsSuffix)")
            }
        }
        for (pack, entry, header) in chain.reversed() {
            let instructions = try pack.contents(entry, header: header, largest: largestObject + PackWriter.deltaOverhead).data
            let target = try instructions.withUnsafeBytes { instructions in
                guard let sizes = Delta.sizes(instructions) else { throw damaged(entry.id, "its delta is malformed") }
                guard sizes.target <= largestObject else { throw overLimit(entry.id, sizes.target) }
                return try object.bytes.withUnsafeBytes { base in
                    guard let target = Delta.apply(instructions, to: base, largest: largestObject) else {
                        throw damaged(entry.id, "its delta does not apply to its base")
                    }
                    return target
                }
            }
            object.bytes = target
        }
        return object
    }

    private func loosePath(_ id: OID) -> String {
        let hex = id.hex
        return "\(path)\(hex.prefix(2))/\(hex.dropFirst(2))"
    }

    /// The compressed bytes of the loose file of `id`; nil when there is none. A file larger
    /// than the largest object could compress to is refused unread.
    private func looseFile(_ id: OID) throws -> (path: String, bytes: [UInt8])? {
        let file = loosePath(id)
        do {
            return (file, try RegularFile.read(file, largest: largestObject + largestObject / 256 + 1024))
        } catch let error as StoreError where error.kind == .notFound {
            return nil
        }
    }

    private func readLoose(_ id: OID) throws -> Object? {
        guard let file = try looseFile(id) else { return nil }
        do {
            let object = try file.bytes.withUnsafeBytes { try LooseObject.read($0, largest: largestObject) }
            return Object(type: object.type, bytes: object.bytes)
        } catch let error as FormatError where error.isOverLimit {
            throw StoreError(.overLimit, "object \(id.hex) \(error.claimed.map { StoreError.overLimit($0, largestObject) } ?? error.message)")
        } catch let error as FormatError {
            throw StoreError(error, file: file.path)
        }
    }

    private func notFound(_ id: OID) -> StoreError {
        StoreError(.notFound, "object \(id.hex) is missing\(packs.problemsSuffix)")
    }

    private func overLimit(_ id: OID, _ size: Int) -> StoreError {
        StoreError(.overLimit, "object \(id.hex) \(StoreError.overLimit(size, largestObject))")
    }

    private func damaged(_ id: OID, _ what: String) -> StoreError {
        StoreError(.damaged, "object \(id.hex) is damaged: \(what)")
    }
}
