internal import FoundationEssentials
internal import Glibc
package import GitFormat

/// A repository's objects, owned by one type: every read and write of an object, a device's
/// own and a cloud's alike, goes through here, and libgit2 reaches them only through it (the
/// `Git` wrapper hands libgit2 a backend over this store, so libgit2 never opens the files).
///
/// Nothing is trusted before it is checked: packs are read through ``StoredPack`` (the index
/// checked whole, the pack's header and trailer against it, every offset and header when
/// read), loose objects only as regular files of bounded size, every object's declared size is
/// checked against ``largestObject`` before anything is inflated or rebuilt, and delta chains
/// are followed in a loop, across packs, with a bound on their length and a check for loops.
/// `objects/info/alternates` is never read: an object is served from this folder or not at all.
///
/// **One decision per read** (``read(_:)``), counted by path in ``reads``: the pack being
/// written (``writingOnePack(_:)``), the folders and delta bases read recently (one cache,
/// bounded by bytes, ``RecentObjects``), the packs, the loose files. Writes go into the pack being written when
/// there is one, else into a loose file, each synced before it is named (``durable``).
package final class ObjectStore {
    /// The `objects/` folder, with a trailing slash.
    package let path: String
    /// Its packs.
    package let packs: StoredPacks
    /// The largest object read, in bytes: anything claiming more is refused before memory is
    /// spent on it. A cloud's is the container's limit for one file; a device's own, 1 GiB.
    package var largestObject: Int
    /// Whether writes are synced to disk before they are renamed into place and named.
    package let durable: Bool
    /// The folders read last and the bases deltas were applied to (a version stored as a delta
    /// against one of them is rebuilt with one delta; a folder compared twice is read once).
    package let recent = RecentObjects(limit: 16 << 20)
    /// The pack being written, inside ``writingOnePack(_:)``.
    package internal(set) var session: PackSession?
    /// How many reads each path served: the decision ``read(_:)`` makes, counted. Nothing prints
    /// or tests the counts yet.
    package internal(set) var reads = ReadCounts()
    /// Small differences between two folders, computed once (``forEachDifference(_:_:_:)``).
    var differences = DifferenceMemo()
    /// Entries of folders already looked up by name (``child(_:of:)``).
    var children = ChildMemo()
    /// Commits already read (``commit(_:verifyingWith:)``): a transfer, an arrival check and a roll-up each
    /// read the same few commits and their parents several times.
    var parsedCommits = CommitMemo()
    /// Folders indexed for lookups by name (``child(_:of:)``), the newest first.
    var indexedFolders: [(id: OID, index: RawTree.Index)] = []

    /// The store of the folder `path` (a repository's `objects/`, with a trailing slash).
    package init(path: String, largestObject: Int, durable: Bool) {
        self.path = path
        self.largestObject = largestObject
        self.durable = durable
        packs = StoredPacks(folder: path + "pack/")
    }

    /// The object `id`: from the pack being written, the recent objects, the packs or a loose
    /// file, in that order (the first that holds it serves it).
    /// - Throws: ``StoreError``: ``StoreError/Kind/notFound`` when the store does not hold it,
    ///   ``StoreError/Kind/overLimit`` when it claims more than ``largestObject`` bytes, else damage.
    package func read(_ id: OID) throws -> ObjectBytes {
        if let pending = session?.objects[id] {
            reads.session += 1
            return pending
        }
        if let kept = recent[id] {
            reads.recent += 1
            return ObjectBytes(type: kept.type, bytes: kept.bytes)
        }
        if let (pack, entry) = packs.locate(id) {
            reads.packed += 1
            let object = try readPacked(pack, entry)
            if object.type == .tree { recent.keep(id, .tree, object.bytes) }
            return object
        }
        if let loose = try readLoose(id) {
            reads.loose += 1
            if loose.type == .tree { recent.keep(id, .tree, loose.bytes) }
            return loose
        }
        throw notFound(id)
    }

    /// The object `id` as ``read(_:)`` reads it, with the pack entry it was read from as read
    /// (``ObjectBytes/stored``) when a pack holds it and it was not read recently: a pack writer
    /// copies such an entry as it is instead of compressing it again.
    /// - Throws: as ``read(_:)``.
    package func readForCopy(_ id: OID) throws -> ObjectBytes {
        if session?.objects[id] == nil, recent[id] == nil, let (pack, entry) = packs.locate(id) {
            reads.packed += 1
            let object = try readPacked(pack, entry, keepingStored: true)
            if object.type == .tree { recent.keep(id, .tree, object.bytes) }
            return object
        }
        return try read(id)
    }

    /// The type and size of the object `id`, read from headers: a whole object's says both; a
    /// delta's type is its base's, found by following the chain's headers, and its size is the
    /// one the delta's first bytes give (checked when the delta is applied), so nothing of the
    /// chain is rebuilt.
    /// - Throws: as ``read(_:)``.
    package func header(of id: OID) throws -> (type: ObjectType, size: Int) {
        if let pending = session?.objects[id] { return (pending.type, pending.bytes.count) }
        if let kept = recent[id] { return (kept.type, kept.bytes.count) }
        if let (pack, entry) = packs.locate(id) {
            let chain = try deltaChain(pack, entry)
            guard let top = chain.links.first else {
                guard case let .packed(_, _, header, type) = chain.base else { preconditionFailure("a chain without deltas ends at an entry") }
                return (type, header.size)
            }
            return (chain.base.type, try targetSize(top.pack, top.entry, top.header))
        }
        guard let file = try openLoose(id) else { throw notFound(id) }
        defer { close(file.descriptor) }
        let path = loosePath(id)
        // The first piece of the file: the header is at the start of the stream.
        let first = try RegularFile.pieces(of: file, path: path)() ?? []
        let head = try readingFormat(file: path) {
            try first.withUnsafeBytes { bytes in
                let inflater = try Zlib.Inflater(bytes)
                var head = [UInt8](repeating: 0, count: 32)
                let got = try inflater.fill(&head)
                return try LooseObject.header(head.prefix(got))
            }
        }
        return (head.type, head.size)
    }

    /// The size of the object `id` as its header says it: for a delta, the size its first
    /// bytes give (checked when it is applied), its chain not followed.
    /// - Throws: as ``read(_:)``.
    package func size(of id: OID) throws -> Int {
        if let pending = session?.objects[id] { return pending.bytes.count }
        if let kept = recent[id] { return kept.bytes.count }
        if let (pack, entry) = packs.locate(id) {
            let header = try pack.header(of: entry)
            return header.base == nil ? header.size : try targetSize(pack, entry, header)
        }
        return try header(of: id).size
    }

    /// The size of what the delta `entry` rebuilds, as its first bytes give it.
    private func targetSize(_ pack: StoredPack, _ entry: StoredPack.Entry, _ header: StoredPack.Header) throws -> Int {
        let prefix = try pack.inflatedPrefix(entry, header: header, count: Delta.largestSizes)
        guard let sizes = prefix.withUnsafeBytes({ Delta.sizes($0) }) else { throw damaged(entry.id, "its delta is malformed") }
        return sizes.target
    }

    /// True when the store holds `id` (in the pack being written, a pack, or a loose file).
    package func contains(_ id: OID) -> Bool {
        session?.objects[id] != nil || packs.locate(id) != nil || RegularFile.exists(loosePath(id))
    }

    /// Lists the packs again when they changed.
    package func refresh() { _ = packs.refreshIfChanged() }

    /// The folder `id`'s bytes.
    /// - Throws: as ``read(_:)``, and ``StoreError/Kind/damaged`` when it is not a folder.
    package func treeBytes(_ id: OID) throws -> [UInt8] {
        let object = try read(id)
        guard object.type == .tree else { throw StoreError(.damaged, "object \(id.hex) is not a folder (a tree)") }
        return object.bytes
    }

    // MARK: Pieces

    private struct Place: Hashable {
        package var pack: ObjectIdentifier
        package var start: Int
    }

    /// One delta of a chain: the entry, where it is, and its header.
    struct ChainLink {
        var pack: StoredPack
        var entry: StoredPack.Entry
        var header: StoredPack.Header
    }

    /// Where a chain of deltas ends: a whole entry of a pack, or an object already read (kept
    /// recently, or a loose file).
    enum ChainBase {
        case packed(StoredPack, StoredPack.Entry, StoredPack.Header, ObjectType)
        case read(ObjectBytes)

        var type: ObjectType {
            switch self {
            case let .packed(_, _, _, type): type
            case let .read(object): object.type
            }
        }
    }

    /// The chain of deltas from `entry` down to a whole object or to an object kept recently,
    /// read from the entries' headers only (in a loop: the chain comes from someone else, and it
    /// may cross packs), the top first.
    /// - Throws: ``StoreError`` when the chain loops, goes deeper than ``PackWriter/deepestRead``,
    ///   ends at an entry of no type, or names a base the store does not hold.
    func deltaChain(_ pack: StoredPack, _ entry: StoredPack.Entry) throws -> (links: [ChainLink], base: ChainBase) {
        var links: [ChainLink] = []
        // The places of the chain, made once a base is followed: a whole object needs none.
        var seen = Set<Place>()
        var current = (pack: pack, entry: entry)
        while true {
            if !links.isEmpty {
                if seen.isEmpty { seen.insert(Place(pack: ObjectIdentifier(pack), start: entry.start)) }
                guard seen.insert(Place(pack: ObjectIdentifier(current.pack), start: current.entry.start)).inserted else {
                    throw damaged(entry.id, "its deltas loop")
                }
            }
            guard links.count <= PackWriter.deepestRead else { throw damaged(entry.id, "its deltas go deeper than \(PackWriter.deepestRead)") }
            let header = try current.pack.header(of: current.entry)
            guard let base = header.base else {
                guard let type = Pack.EntryType(rawValue: header.type)?.object else { throw damaged(entry.id, "its base has no type") }
                return (links, .packed(current.pack, current.entry, header, type))
            }
            links.append(ChainLink(pack: current.pack, entry: current.entry, header: header))
            if let kept = recent[base] {
                return (links, .read(ObjectBytes(type: kept.type, bytes: kept.bytes)))
            } else if let next = try current.pack.entry(of: base) {
                current = (current.pack, next)
            } else if let found = packs.locate(base) {
                current = found
            } else if let loose = try readLoose(base) {
                return (links, .read(loose))
            } else {
                throw StoreError(.notFound, "object \(entry.id.hex) is a delta against \(base.hex), which is missing\(packs.problemsSuffix)")
            }
        }
    }

    /// A packed object, its chain of deltas (``deltaChain(_:_:)``) rebuilt from its base up.
    /// Every object a delta is applied to is kept (``recent``): the next version read, or the
    /// next file of a checkout, is often a delta against the same bases. With `keepingStored`,
    /// the top entry as read comes with it (``ObjectBytes/stored``), for a pack writer to copy as
    /// it is: the compressed bytes, and for a delta its base's bytes and its instructions.
    func readPacked(_ pack: StoredPack, _ entry: StoredPack.Entry, keepingStored: Bool = false) throws -> ObjectBytes {
        let (chain, base) = try deltaChain(pack, entry)
        var object: ObjectBytes
        var topStream: [UInt8]?
        switch base {
        case let .read(read):
            object = read
        case let .packed(pack, whole, header, type):
            if chain.isEmpty, keepingStored {
                let contents = try pack.contents(whole, header: header, largest: largestObject)
                topStream = contents.stream
                object = ObjectBytes(type: type, bytes: contents.data)
            } else {
                object = ObjectBytes(type: type, bytes: try pack.inflated(whole, header: header, largest: largestObject))
            }
            if !chain.isEmpty { recent.keep(whole.id, type, object.bytes) }
        }
        var topDelta: (base: OID, baseBytes: [UInt8], instructions: [UInt8])?
        for (index, link) in chain.enumerated().reversed() {
            let (pack, entry, header) = (link.pack, link.entry, link.header)
            let keeping = index == 0 && keepingStored
            let largest = largestObject + PackWriter.deltaOverhead
            let contents = keeping ? try pack.contents(entry, header: header, largest: largest) : (stream: [], data: try pack.inflated(entry, header: header, largest: largest))
            let target = try contents.data.withUnsafeBytes { instructions in
                guard let sizes = Delta.sizes(instructions) else { throw damaged(entry.id, "its delta is malformed") }
                guard sizes.target <= largestObject else { throw overLimit(entry.id, sizes.target) }
                return try object.bytes.withUnsafeBytes { base in
                    guard let target = Delta.apply(instructions, to: base, largest: largestObject) else {
                        throw damaged(entry.id, "its delta does not apply to its base")
                    }
                    return target
                }
            }
            if keeping, let base = header.base {
                topStream = contents.stream
                topDelta = (base, object.bytes, contents.data)
            }
            // The objects below the top are kept: reading a history newest first meets them
            // next (each version a delta against its parent's), and a chain read again from its
            // base at every step cost its length squared.
            if index > 0 { recent.keep(entry.id, object.type, target) }
            object.bytes = target
        }
        if keepingStored, let topStream { object.stored = .init(stream: topStream, delta: topDelta) }
        return object
    }

    func loosePath(_ id: OID) -> String {
        let hex = id.hex
        return "\(path)\(hex.prefix(2))/\(hex.dropFirst(2))"
    }

    /// The loose file of `id` opened; nil when there is none. A file larger than the largest
    /// object could compress to is refused unread.
    private func openLoose(_ id: OID) throws -> RegularFile.Opened? {
        do {
            return try RegularFile.open(loosePath(id), largest: largestObject + largestObject / 256 + 1024)
        } catch let error as StoreError where error.kind == .notFound {
            return nil
        }
    }

    /// The loose object `id`, its file read a megabyte at a time (no copy of a large file's
    /// compressed bytes is held); nil when there is none. A file larger than the largest object
    /// could compress to is refused unread.
    private func readLoose(_ id: OID) throws -> ObjectBytes? {
        guard let file = try openLoose(id) else { return nil }
        defer { close(file.descriptor) }
        let path = loosePath(id)
        do {
            let object = try LooseObject.read(pieces: RegularFile.pieces(of: file, path: path), largest: largestObject)
            return ObjectBytes(type: object.type, bytes: object.bytes)
        } catch let error as FormatError where error.isOverLimit {
            throw StoreError(.overLimit, "object \(id.hex) \(error.claimed.map { StoreError.overLimit($0, largestObject) } ?? error.message)")
        } catch let error as FormatError {
            throw StoreError(.damaged, "object \(id.hex) is damaged: its file \(path): \(error.description)")
        }
    }

    func notFound(_ id: OID) -> StoreError {
        StoreError(.notFound, "object \(id.hex) is missing\(packs.problemsSuffix)")
    }

    private func overLimit(_ id: OID, _ size: Int) -> StoreError {
        StoreError(.overLimit, "object \(id.hex) \(StoreError.overLimit(size, largestObject))")
    }

    private func damaged(_ id: OID, _ what: String) -> StoreError {
        StoreError(.damaged, "object \(id.hex) is damaged: \(what)")
    }
}
