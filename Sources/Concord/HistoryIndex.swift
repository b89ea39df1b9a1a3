internal import FoundationEssentials
internal import Git
internal import GitFormat
internal import GitStore

/// A persistent index of a container's history, so that listing a document's versions and
/// finding its current version cost what concerns that document, not the length of the whole
/// history (git's commit-graph with changed-path Bloom filters is the model).
///
/// For every document (a file, or a package folder by the package patterns the index was built
/// with, ``patterns``) it keeps the commits that are versions of it, each with the path's entry there and the versions it replaced. At
/// the index's tip, a path's current version is the one version whose entry is the tip's (when
/// several share it, callers walk the history, which decides). It is a cache: everything in it is computed from the repository, so a
/// missing, stale or damaged index is rebuilt, never trusted.
///
/// On disk, in `.git/concord/history/`: `base-N`, an immutable table sorted by path hash and
/// read by binary search; `log-N`, records appended since; and `tip`, written last by rename,
/// naming the commit the index describes, the generation N, how many bytes of the log count and
/// the package patterns (an index built with other patterns is rebuilt).
/// Only writers (holding the container lock) change it; readers read the files `tip` names.
final class HistoryIndex {
    /// One version of a path: the commit, the path's entry there (nil for a deletion) with its
    /// mode, and the versions it replaced (its previous versions). A *carried* one is a version
    /// of a name the path had before a rename, which an integration named the path's current
    /// version (an edit made under the old name): listed to find the current version, never as
    /// one of the path's own versions.
    struct Version: Equatable {
        var commit: OID
        var entry: OID?
        var mode: UInt32 = 0
        var replaces: [OID]
        var carried = false
    }

    /// The first line of `tip`. Version 5 keys paths by their bytes: a version 4 index may hold
    /// two names that differ by Unicode normalization alone as one path, so it is rebuilt.
    /// Version 6 lists the versions of names that became or stopped being folders.
    static let format = "concord-history 6"

    /// The commit whose history the index describes.
    private(set) var tip: OID?
    /// The package patterns that decide which folders are documents.
    let patterns: PackagePatterns
    /// While the index is being extended: the commits arriving, whose versions are not in it yet.
    /// Any other commit a walk from them meets is in the history the index describes.
    var arriving: Set<OID>?
    private let folder: String
    private var generation: Int
    private var base: BaseTable?
    private var logged: [TreePath: [Version]] = [:]
    /// Paths read so far: all their versions, and each entry's versions counted (a folder above
    /// many documents has a version in most commits, so a lookup must not copy them).
    private var read: [TreePath: PathVersions] = [:]
    private var pending: [(path: String, version: Version)] = []
    private var logBytes: Int

    private init(folder: String, tip: OID?, patterns: PackagePatterns, generation: Int, base: BaseTable?, logBytes: Int) {
        self.folder = folder
        self.tip = tip
        self.patterns = patterns
        self.generation = generation
        self.base = base
        self.logBytes = logBytes
    }

    /// An empty index, to be built and saved as a new base.
    static func empty(gitDirectory: String, patterns: PackagePatterns) -> HistoryIndex {
        HistoryIndex(folder: gitDirectory + ContainerLayout.historyIndex, tip: nil, patterns: patterns, generation: 0, base: nil, logBytes: 0)
    }

    /// The index on disk; nil when there is none or it cannot be read whole.
    static func open(gitDirectory: String) -> HistoryIndex? {
        let folder = gitDirectory + ContainerLayout.historyIndex
        guard let text = try? String(contentsOfFile: "\(folder)/tip", encoding: .utf8) else { return nil }
        let lines = text.split(separator: "\n").map(String.init)
        guard lines.count >= 4, lines[0] == Self.format, let tip = OID(hex: lines[1]),
            let generation = Int(lines[2]), let logBytes = Int(lines[3])
        else { return nil }
        guard let base = BaseTable(path: "\(folder)/base-\(generation)") else { return nil }
        let index = HistoryIndex(folder: folder, tip: tip, patterns: PackagePatterns(Array(lines.dropFirst(4))), generation: generation, base: base, logBytes: logBytes)
        guard logBytes == 0 || index.readLog() else { return nil }
        return index
    }

    // MARK: Reading

    private struct PathVersions {
        var all: [Version] = []
        var byEntry: [OID?: (count: Int, commit: OID)] = [:]
        var commits: Set<OID> = []

        /// Adds `version`, unless its commit is already one of the path's versions (an index
        /// that recorded a commit twice must not list it twice).
        mutating func append(_ version: Version) {
            guard commits.insert(version.commit).inserted else { return }
            all.append(version)
            let known = byEntry[version.entry]
            byEntry[version.entry] = ((known?.count ?? 0) + 1, known?.commit ?? version.commit)
        }
    }

    private func pathVersions(_ path: String) -> PathVersions {
        let key = TreePath(path)
        if let known = read[key] { return known }
        var versions = PathVersions()
        for version in (base?.versions(of: path) ?? []) + (logged[key] ?? []) { versions.append(version) }
        read[key] = versions
        return versions
    }

    /// The versions of `path` the index knows, in the order they were indexed (carried ones
    /// left out).
    func versions(of path: String) -> [Version] {
        pathVersions(path).all.filter { !$0.carried }
    }

    /// Every version of `path` the index holds, carried ones included.
    func allVersions(of path: String) -> [Version] {
        pathVersions(path).all
    }

    /// The current version of `path` at a commit of the history the index describes (``tip`` or
    /// one of its ancestors, `atTip` when it is the tip), where its entry is `entry`: the one
    /// version with that entry; for an absent path, `.some(nil)` when it was never deleted, and at
    /// the tip its one deletion when that is its last version (nothing brought it back since). Nil
    /// when the index cannot tell (several versions share that entry, or an absent path was
    /// deleted before an ancestor of the tip, or more than once): the walk decides.
    func current(of path: String, entry: OID?, atTip: Bool) -> OID?? {
        let versions = pathVersions(path)
        let matching = versions.byEntry[entry]
        guard entry == nil else { return matching?.count == 1 ? .some(matching!.commit) : nil }
        // An absent path either was deleted (a version) or did not exist yet (none). At an
        // ancestor of the tip either may hold; at the tip, a path deleted once and never again
        // present is the deletion's (a document deleted long ago: the walk went back to it).
        guard let matching else { return .some(nil) }
        guard atTip, matching.count == 1, let last = versions.all.last, last.entry == nil, !last.carried, last.commit == matching.commit else { return nil }
        return .some(last.commit)
    }

    // MARK: Writing

    /// Names `commit` as the tip the records added so far describe, without saving (a rebuild
    /// advances commit by commit and saves once).
    func advance(to commit: OID) { tip = commit }

    /// Every path with a version (for checks).
    var paths: Set<TreePath> { Set(logged.keys).union((base?.paths() ?? []).map(TreePath.init)) }

    /// Records a version of `path`.
    func add(_ version: Version, of path: String) {
        logged[TreePath(path), default: []].append(version)
        read[TreePath(path)]?.append(version)
        pending.append((path, version))
    }

    /// Writes what was added since the last save and names `tip` as the commit described: the
    /// records are appended to the log, or everything is written as a new base when the log
    /// would grow past a quarter of the base (or 512 KiB), or there is no base yet; then `tip`
    /// is replaced. The log's size counts what this save adds: an import of 100,000 documents
    /// writes a base at once, instead of a 7 MB log that every command would read until the
    /// next write.
    func save(tip: OID) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let old = generation
        var records: [UInt8] = []
        for (path, version) in pending { Self.encode(path, version, into: &records) }
        let compacting = base == nil || logBytes + records.count > max(64 << 10, min((base?.size ?? 0) / 4, 512 << 10))
        if compacting { try writeBase() } else { try appendLog(records) }
        self.tip = tip
        try writeTip()
        if compacting && old != generation {
            try? FileManager.default.removeItem(atPath: "\(folder)/base-\(old)")
            try? FileManager.default.removeItem(atPath: "\(folder)/log-\(old)")
        }
    }

    private func appendLog(_ data: [UInt8]) throws {
        pending = []
        guard !data.isEmpty else { return }
        let path = "\(folder)/log-\(generation)"
        // Bytes past the committed length are a write that never counted: overwrite them.
        do {
            try RegularFile.write(data, to: path, at: logBytes)
        } catch {
            throw ConcordError.io(path, reason: "cannot write the history index")
        }
        logBytes += data.count
    }

    /// Writes every path's versions and current version as a new base of the next generation.
    ///
    /// Each path's record is encoded once into one byte array, and the records are ordered by
    /// sorting their numbers: sorting the records themselves (a string and bytes each) moved and
    /// counted references at every swap, and `Data` grew a piece at a time (a base of 100,000
    /// paths: 7% of a clone's samples).
    private func writeBase() throws {
        var paths = Set(logged.keys)
        if let base { paths.formUnion(base.paths().map(TreePath.init)) }
        var records: [(hash: UInt64, path: TreePath, start: Int, count: Int)] = []
        records.reserveCapacity(paths.count)
        var body: [UInt8] = []
        for path in paths {
            let start = body.count
            let key = path.value.utf8
            Self.appendInteger(UInt16(key.count), to: &body)
            body.append(contentsOf: key)
            let versions = versionsToWrite(of: path)
            Self.appendInteger(UInt32(versions.count), to: &body)
            for version in versions { Self.encode(version, into: &body) }
            records.append((BaseTable.hash(path.value), path, start, body.count - start))
        }
        let order = records.indices.sorted {
            let (left, right) = (records[$0], records[$1])
            return left.hash != right.hash ? left.hash < right.hash : left.path < right.path
        }
        var file = BaseTable.magic
        Self.appendInteger(UInt32(records.count), to: &file)
        let dataStart = file.count + records.count * 16
        file.reserveCapacity(dataStart + body.count)
        var offset = dataStart
        for number in order {
            Self.appendInteger(records[number].hash, to: &file)
            Self.appendInteger(UInt32(offset), to: &file)
            Self.appendInteger(UInt32(records[number].count), to: &file)
            offset += records[number].count
        }
        for number in order {
            let record = records[number]
            file.append(contentsOf: body[record.start..<(record.start + record.count)])
        }
        let next = generation + 1
        let path = "\(folder)/base-\(next)"
        try Data(file).write(to: URL(fileURLWithPath: path), options: .atomic)
        generation = next
        logBytes = 0
        logged = [:]
        pending = []
        base = BaseTable(path: path)
    }

    private func writeTip() throws {
        guard let tip else { return }
        let text = "\(Self.format)\n\(tip.hex)\n\(generation)\n\(logBytes)\n" + patterns.lines.map { "\($0)\n" }.joined()
        try Data(text.utf8).write(to: URL(fileURLWithPath: "\(folder)/tip"), options: .atomic)
    }

    /// Reads the committed part of the log; false when it is damaged.
    private func readLog() -> Bool {
        guard let data = FileManager.default.contents(atPath: "\(folder)/log-\(generation)"), data.count >= logBytes else { return false }
        var reader = Reader(data: data.prefix(logBytes))
        while !reader.isAtEnd {
            guard let length = reader.integer(UInt16.self), let key = reader.bytes(Int(length)),
                let version = Self.decodeVersion(&reader)
            else { return false }
            logged[TreePath(String(decoding: key, as: UTF8.self)), default: []].append(version)
        }
        return true
    }

    /// Every version of `path` to write into a base: those read already, else the base's and
    /// the log's (each commit once), without keeping them read (a base of 100,000 paths would
    /// keep them all).
    private func versionsToWrite(of path: TreePath) -> [Version] {
        if let known = read[path] { return known.all }
        var seen = Set<OID>()
        return ((base?.versions(of: path.value) ?? []) + (logged[path] ?? [])).filter { seen.insert($0.commit).inserted }
    }

    // MARK: Encoding

    private static func encode(_ path: String, _ version: Version, into data: inout [UInt8]) {
        let key = path.utf8
        appendInteger(UInt16(key.count), to: &data)
        data.append(contentsOf: key)
        encode(version, into: &data)
    }

    static func encode(_ version: Version, into data: inout [UInt8]) {
        data.append(contentsOf: version.commit.bytes)
        encodeOptional(version.entry, carried: version.carried, into: &data)
        if version.entry != nil { appendInteger(version.mode, to: &data) }
        data.append(UInt8(min(version.replaces.count, 255)))
        for replaced in version.replaces.prefix(255) { data.append(contentsOf: replaced.bytes) }
    }

    /// A flag byte (1: an id follows; 2: carried) and the id.
    static func encodeOptional(_ id: OID?, carried: Bool = false, into data: inout [UInt8]) {
        data.append((id == nil ? 0 : 1) | (carried ? 2 : 0))
        if let id { data.append(contentsOf: id.bytes) }
    }

    static func decodeVersion(_ reader: inout Reader) -> Version? {
        guard let commit = reader.oid(), let flag = reader.byte(), flag < 4 else { return nil }
        let carried = flag & 2 != 0
        var entry: OID?
        if flag & 1 != 0 {
            guard let id = reader.oid() else { return nil }
            entry = id
        }
        var mode: UInt32 = 0
        if entry != nil {
            guard let given = reader.integer(UInt32.self) else { return nil }
            mode = given
        }
        guard let count = reader.byte() else { return nil }
        var replaces: [OID] = []
        for _ in 0..<count {
            guard let id = reader.oid() else { return nil }
            replaces.append(id)
        }
        return Version(commit: commit, entry: entry, mode: mode, replaces: replaces, carried: carried)
    }

    static func appendInteger<T: FixedWidthInteger>(_ value: T, to data: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { data.append(contentsOf: $0) }
    }
}

/// Reads bytes in order, never past the end.
struct Reader {
    let data: Data
    var offset: Int

    init(data: Data) {
        self.data = data
        offset = data.startIndex
    }

    var isAtEnd: Bool { offset >= data.endIndex }

    mutating func byte() -> UInt8? {
        guard offset < data.endIndex else { return nil }
        defer { offset += 1 }
        return data[offset]
    }

    mutating func bytes(_ count: Int) -> Data? {
        guard count >= 0, offset + count <= data.endIndex else { return nil }
        defer { offset += count }
        return data[offset..<(offset + count)]
    }

    mutating func integer<T: FixedWidthInteger>(_ type: T.Type) -> T? {
        guard let bytes = bytes(MemoryLayout<T>.size) else { return nil }
        return bytes.reduce(T(0)) { $0 << 8 | T($1) }
    }

    mutating func oid() -> OID? {
        guard let bytes = bytes(20) else { return nil }
        return OID(bytes: bytes)
    }
}

/// The immutable, sorted part of the index: a table of (path hash, offset, length) sorted by
/// hash, then each path's records. Mapped from its file, read by binary search.
struct BaseTable {
    static let magic = Array("CCHIST1\0".utf8)

    let data: Data
    let count: Int

    /// Maps the file; nil when it is missing or not a table.
    init?(path: String) {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped),
            data.count >= 12, Array(data.prefix(8)) == Self.magic
        else { return nil }
        var reader = Reader(data: data)
        _ = reader.bytes(8)
        guard let count = reader.integer(UInt32.self), data.count >= 12 + Int(count) * 16 else { return nil }
        self.data = data
        self.count = Int(count)
    }

    var size: Int { data.count }

    /// FNV-1a, 64 bits.
    static func hash(_ path: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in path.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }

    func versions(of path: String) -> [HistoryIndex.Version] {
        guard var reader = records(of: path), let count = reader.integer(UInt32.self) else { return [] }
        var result: [HistoryIndex.Version] = []
        for _ in 0..<count {
            guard let version = HistoryIndex.decodeVersion(&reader) else { return result }
            result.append(version)
        }
        return result
    }

    /// Every path the table holds.
    func paths() -> [String] {
        (0..<count).compactMap { index in
            var reader = entryReader(at: index)
            guard let length = reader?.integer(UInt16.self), let key = reader?.bytes(Int(length)) else { return nil }
            return String(decoding: key, as: UTF8.self)
        }
    }

    /// A reader at the records of `path` (after its key); nil when the table does not hold it.
    private func records(of path: String) -> Reader? {
        let wanted = Self.hash(path)
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            if hash(at: middle) < wanted { low = middle + 1 } else { high = middle }
        }
        var index = low
        let key = Data(path.utf8)
        while index < count, hash(at: index) == wanted {
            if var reader = entryReader(at: index), let length = reader.integer(UInt16.self),
                let stored = reader.bytes(Int(length)), stored == key
            {
                return reader
            }
            index += 1
        }
        return nil
    }

    private func hash(at index: Int) -> UInt64 {
        var reader = Reader(data: data)
        reader.offset = data.startIndex + 12 + index * 16
        return reader.integer(UInt64.self) ?? 0
    }

    private func entryReader(at index: Int) -> Reader? {
        var reader = Reader(data: data)
        reader.offset = data.startIndex + 12 + index * 16 + 8
        guard let offset = reader.integer(UInt32.self), let length = reader.integer(UInt32.self),
            Int(offset) + Int(length) <= data.count
        else { return nil }
        return Reader(data: data[(data.startIndex + Int(offset))..<(data.startIndex + Int(offset) + Int(length))])
    }
}
