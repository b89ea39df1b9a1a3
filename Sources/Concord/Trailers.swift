internal import FoundationEssentials
internal import ConcordMerge
internal import Git
internal import GitFormat

/// The trailers Concord writes at the end of each commit message, and reads back.
struct Trailers: Equatable {
    static let document = "Concord-Document"
    static let device = "Concord-Device"
    static let clock = "Concord-Clock"
    static let resolves = "Concord-Resolves"
    static let conflict = "Concord-Conflict"
    /// On an integration: `<version id> <document>`, the current version of a document whose
    /// content is the same on both parents though its version differs (a resolution that kept
    /// the content), so that finding the current version never follows the wrong parent.
    static let current = "Concord-Current"
    /// In a document's group: the name it had before this commit renamed it (`concord mv`, or a
    /// file a save found gone under one name and new under another).
    static let renamed = "Concord-Renamed"

    /// The `Key: value` lines, in the order of the message.
    private(set) var pairs: [(key: String, value: String)] = []
    /// The versions each document's group resolved (``resolved(_:)``), gathered as the pairs
    /// are read: a message naming thousands of documents is read once, not once per document.
    private var resolvedByDocument: [TreePath: [String]] = [:]
    /// The first `Concord-Current` version named for each document (nil: not a commit id).
    private var currentByDocument: [TreePath: OID?] = [:]
    /// The first `Concord-Renamed` name of each document's group.
    private var renamedByDocument: [TreePath: String] = [:]
    /// The document whose group the pairs read last belong to.
    private var group: TreePath?
    /// The first value of each key: a stamp reads the device and the clock of a commit each
    /// time it is asked for, and they come last, after every document's group.
    private var firstValues: [TreePath: String] = [:]

    static func == (lhs: Trailers, rhs: Trailers) -> Bool {
        lhs.pairs.count == rhs.pairs.count
            && zip(lhs.pairs, rhs.pairs).allSatisfy { $0.key.sameBytes(as: $1.key) && $0.value.sameBytes(as: $1.value) }
    }

    init(_ pairs: [(key: String, value: String)] = []) {
        for (key, value) in pairs { add(key, value) }
    }

    /// Reads the `Concord-Key: value` lines of the message's last paragraph
    /// (``MessageTrailers/pairs(in:keyPrefix:)``, in one pass over its bytes).
    init(message: String) {
        var message = message
        message.withUTF8 { bytes in
            for (key, value) in MessageTrailers.pairs(in: bytes, keyPrefix: "Concord-") {
                add(Self.knownKeys.first { $0.sameBytes(as: key) } ?? key, value)
            }
        }
    }

    /// The keys Concord writes, shared by every message that holds them instead of copied.
    private static let knownKeys = [document, device, clock, resolves, conflict, current, renamed]

    func value(_ key: String) -> String? { firstValues[TreePath(key)] }
    func values(_ key: String) -> [String] { pairs.filter { $0.key.sameBytes(as: key) }.map(\.value) }

    mutating func add(_ key: String, _ value: String) {
        pairs.append((key, value))
        if firstValues[TreePath(key)] == nil { firstValues[TreePath(key)] = value }
        if key.sameBytes(as: Self.document) {
            group = TreePath(value)
        } else if key.sameBytes(as: Self.resolves), let group {
            resolvedByDocument[group, default: []].append(value)
        } else if key.sameBytes(as: Self.renamed), let group, renamedByDocument[group] == nil {
            renamedByDocument[group] = value
        } else if key.sameBytes(as: Self.current), let space = value.utf8.firstIndex(of: UInt8(ascii: " ")) {
            let document = TreePath(value[value.utf8.index(after: space)...])
            if currentByDocument[document] == nil { currentByDocument[document] = .some(OID(hex: String(value[..<space]))) }
        }
    }

    /// The versions this commit resolved for `document`: the `Concord-Resolves` lines after its
    /// `Concord-Document` line, up to the next document's (one commit can resolve several
    /// documents). Empty when the commit resolved nothing of it.
    func resolved(_ document: DocumentPath) -> [String] {
        resolvedByDocument[TreePath(document.value)] ?? []
    }

    /// The documents this commit resolved something of, in the order their groups came.
    var resolvedDocuments: [DocumentPath] {
        var seen = Set<TreePath>()
        return values(Self.document).compactMap { value in
            let path = TreePath(value)
            return resolvedByDocument[path] != nil && seen.insert(path).inserted ? DocumentPath(unchecked: value) : nil
        }
    }

    /// The name `document` had before this commit renamed it; nil when it did not.
    func renamedFrom(_ document: DocumentPath) -> DocumentPath? {
        renamedByDocument[TreePath(document.value)].flatMap { try? DocumentPath($0) }
    }

    /// The name this commit gave `document` when it renamed it; nil when it did not.
    func renamedTo(_ document: DocumentPath) -> DocumentPath? {
        renamedByDocument.first { $0.value.sameBytes(as: document.value) }.flatMap { try? DocumentPath($0.key.value) }
    }

    /// The documents a `Concord-Current` trailer names a version for.
    var currentDocuments: [DocumentPath] { currentByDocument.keys.map { DocumentPath(unchecked: $0.value) } }

    /// The version a `Concord-Current` trailer names for `document`.
    func current(of document: DocumentPath) -> OID? {
        currentByDocument[TreePath(document.value)] ?? nil
    }

    /// The message: a subject line, a blank line, the trailers.
    func message(subject: String) -> String {
        let body = pairs.map { "\($0.key): \($0.value)" }.joined(separator: "\n")
        return "\(subject)\n\n\(body)\n"
    }
}

extension Substring {
    func trimmingCharacters(in set: Character) -> String {
        var slice = self[...]
        while slice.first == set { slice = slice.dropFirst() }
        while slice.last == set { slice = slice.dropLast() }
        return String(slice)
    }
}

/// What Concord knows of a commit: who saved it, when, and its clock.
struct Stamp {
    var deviceName: String
    var deviceID: String
    var clock: HybridLogicalClock
    var date: Date
    var trailers: Trailers

    init(_ commit: Commit, trailers: Trailers) {
        self.trailers = trailers
        deviceName = commit.author.name
        deviceID = trailers.value(Trailers.device) ?? commit.author.email
        clock = trailers.value(Trailers.clock).flatMap(HybridLogicalClock.init) ?? HybridLogicalClock(date: commit.author.time)
        // git keeps whole seconds; the clock's milliseconds are the wall time of the save when
        // they fall in that second (not when the clock ran ahead of the wall, after a device
        // with a clock ahead).
        let seconds = commit.author.time.timeIntervalSince1970.rounded(.down)
        let milliseconds = clock.milliseconds
        date = milliseconds / 1000 == Int64(seconds) ? Date(timeIntervalSince1970: Double(milliseconds) / 1000) : commit.author.time
    }
}
