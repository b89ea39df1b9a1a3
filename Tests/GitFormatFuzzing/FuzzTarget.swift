/// The fuzz targets: one for each reader of bytes from a cloud in GitFormat, and two for
/// ConcordMerge's (JSON: the JSON policy's versions, the key-value store; glob patterns: the
/// policies' and packages' patterns), each a function
/// of one input that must never crash, hang or allocate past its limits, and that checks the
/// answers it gets where the format says what they must be (a wrong answer throws
/// ``FuzzFailure``).
///
/// Each target has a libFuzzer executable (`Tests/Fuzz/Fuzzers/<name>`, built by `scripts/fuzz`),
/// a seed corpus (`Tests/Fuzz/Corpus/<name>`), and the crashes it found (`Tests/Fuzz/Crashes/<name>`);
/// `FuzzCorpusTests` runs every seed and every saved crash through it on each `swift test`.
/// An input starts with a few bytes that steer the run (sizes, limits, where to split), read
/// big-endian; each target's documentation gives its layout.
package enum FuzzTarget: String, CaseIterable, Sendable {
    /// ``PackIndex``: validation, then every id and offset it lists (``packIndex(_:)``).
    case packIndex = "pack-index"
    /// ``Pack``: entry headers and contents walked like an indexer, and ``Pack/validate(_:against:)`` (``pack(_:)``).
    case pack
    /// ``Delta/sizes(_:)`` and ``Delta/apply(_:to:largest:)`` (``delta(_:)``).
    case delta
    /// ``Delta/make(from:to:tree:)``, then the delta applied (``deltaMake(_:)``).
    case deltaMake = "delta-make"
    /// ``RawTree``: validation, differences, lookups and splices (``tree(_:)``).
    case tree
    /// ``Zlib``: inflation to a declared size, whole and step by step (``zlib(_:)``).
    case zlib
    /// ``LooseObject``: a loose object's file under a small limit, and its header (``looseObject(_:)``).
    case looseObject = "loose-object"
    /// ``References``: a loose reference file and `packed-refs` (``references(_:)``).
    case references
    /// ``CommitObject`` and ``MessageTrailers``: a commit's headers and its message's trailers (``commit(_:)``).
    case commit
    /// ``PacketLineReader``, ``ReferenceAdvertisement`` and ``PushReport``: pkt-lines received in pieces, an advertisement and
    /// receive-pack's report (``packetLine(_:)``).
    case packetLine = "pkt-line"
    /// ``ConfigFile``: a repository's `.git/config` (``config(_:)``).
    case config
    /// ``JSONValue``: a JSON text read, written in three styles and read back, and a key-value
    /// entry's clock (``json(_:)``).
    case json
    /// ``GlobPattern``: a pattern against a path, and patterns made from the path (``glob(_:)``).
    case glob

    /// Runs one input through the target.
    /// - Throws: ``FuzzFailure`` when a reader gave a wrong answer.
    package func run(_ input: UnsafeRawBufferPointer) throws(FuzzFailure) {
        switch self {
        case .packIndex: try Self.packIndex(input)
        case .pack: try Self.pack(input)
        case .delta: try Self.delta(input)
        case .deltaMake: try Self.deltaMake(input)
        case .tree: try Self.tree(input)
        case .zlib: try Self.zlib(input)
        case .looseObject: try Self.looseObject(input)
        case .references: try Self.references(input)
        case .commit: try Self.commit(input)
        case .packetLine: try Self.packetLine(input)
        case .config: try Self.config(input)
        case .json: try Self.json(input)
        case .glob: try Self.glob(input)
        }
    }

    /// libFuzzer's test function: runs the input, and stops the process with the failure's
    /// message when a reader gave a wrong answer, so that libFuzzer saves the input as a crash.
    /// - Returns: 0, as libFuzzer expects.
    package func fuzz(_ data: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
        do {
            try run(UnsafeRawBufferPointer(start: data, count: count))
        } catch {
            fatalError("fuzz target \(rawValue): \(error)")
        }
        return 0
    }
}
