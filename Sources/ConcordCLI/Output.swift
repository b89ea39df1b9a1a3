import Concord
import ConcordMerge
import FoundationEssentials
internal import GitStore
internal import Glibc

/// Printing results and failures the same way in every subcommand.
enum Output {
    /// Prints one line of a command's report on stdout, its control characters escaped (names
    /// and device names come from the cloud). Document contents are written as they are.
    static func line(_ text: String) {
        print(TerminalText.escaped(text))
    }

    /// Prints a table in one write, each row a line as ``line(_:)`` prints it: its cells one
    /// after the other, each but the last followed by spaces up to its column's width in
    /// `widths`, and by one at least (a cell is never cut short). The bytes are gathered as
    /// they come: a `String` made of each line cost 3,000 instructions a row of `ls`.
    static func table(_ rows: some Sequence<[String]>, widths: [Int]) {
        var bytes: [UInt8] = []
        for row in rows {
            for (column, cell) in row.enumerated() {
                var text = TerminalText.escaped(cell)
                text.withUTF8 { bytes.append(contentsOf: $0) }
                if column < row.count - 1 {
                    let width = column < widths.count ? widths[column] : 0
                    bytes.append(contentsOf: repeatElement(0x20, count: max(1, width - length(text))))
                }
            }
            bytes.append(0x0A)
        }
        print(String(decoding: bytes, as: UTF8.self), terminator: "")
    }

    /// `text` followed by spaces up to `width` characters, and by one at least: a column of a
    /// line, never cut short. (Foundation's `padding(toLength:withPad:startingAt:)` cuts.)
    static func column(_ text: String, width: Int) -> String {
        text + String(repeating: " ", count: max(1, width - length(text)))
    }

    /// The characters of `text`, counted from its bytes when they are all ASCII.
    private static func length(_ text: String) -> Int {
        text.utf8.allSatisfy { $0 < 0x80 } ? text.utf8.count : text.count
    }

    /// Prints one line on stderr, its control characters escaped: names from the cloud can never
    /// fake a line or drive the terminal.
    static func printError(_ line: String) {
        standardError(TerminalText.escaped(line) + "\n")
    }

    /// Writes `bytes` on stdout as they are, at once (past `print`'s buffer), without copying
    /// them (a document `show` prints may be 100 MB).
    static func standardOutput(_ bytes: some ContiguousBytes) {
        write(bytes, to: 1, named: "standard output")
    }

    /// Writes `text` on stdout as it is, at once.
    static func standardOutput(_ text: String) {
        write(Data(text.utf8), to: 1, named: "standard output")
    }

    /// Writes `text` on stderr as it is, at once.
    static func standardError(_ text: String) {
        write(Data(text.utf8), to: 2, named: "standard error")
    }

    /// A stream closed or full is no failure of the command that writes to it.
    private static func write(_ bytes: some ContiguousBytes, to descriptor: Int32, named name: String) {
        _ = try? bytes.withUnsafeBytes { try RegularFile.write($0, to: descriptor, at: nil, path: name) }
    }

    /// Prints a value as one JSON document on stdout.
    static func json<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        standardOutput(try encoder.encode(value) + Data("\n".utf8))
    }

    /// Reads a whole file, or standard input for `-`: any readable file, pipe or device
    /// (`/dev/null`, `/dev/stdin`, a shell's `<(command)`), read as a stream until its end.
    static func read(_ path: String, relativeTo options: GlobalOptions) throws -> Data {
        path == "-" ? try read(descriptor: 0, named: path) : try read(file: options.resolvePath(path), named: path)
    }

    /// Reads the whole file at `full`, named `path` in errors.
    static func read(file full: String, named path: String) throws -> Data {
        let descriptor = open(full, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ConcordError.io(path, reason: "cannot be read: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var info = stat()
        if fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            throw ConcordError.io(path, reason: "is a folder: give a file")
        }
        return try read(descriptor: descriptor, named: path)
    }

    /// Reads `descriptor` until its end.
    private static func read(descriptor: Int32, named path: String) throws -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return data }
            if count < 0 {
                if errno == EINTR { continue }
                throw ConcordError.io(path, reason: "cannot be read: \(String(cString: strerror(errno)))")
            }
            data.append(contentsOf: buffer[0..<count])
        }
    }

    static func date(_ date: Date) -> String { date.formatted(.iso8601) }
}

/// A version as `versions --json` prints it.
struct VersionJSON: Encodable {
    var id: String
    var current: Bool
    var conflict: Bool
    var device: String
    var deviceId: String
    var modified: Date
    var clock: String
    var deleted: Bool
    var folder: Bool?
    var size: Int
    var package: Bool
    var resolves: [String]?
    var replaces: [String]
    var name: String?
    var renamedFrom: String?
    var renamedTo: String?

    /// The JSON of `version`; `name` is given when it was made under another name than
    /// `document` (before a rename).
    init(_ version: DocumentVersion, of document: DocumentPath? = nil) {
        id = version.id
        current = version.isCurrent
        conflict = version.isConflict
        device = version.deviceName
        deviceId = version.deviceID
        modified = version.modified
        clock = version.clock.description
        deleted = version.isDeleted
        folder = version.isFolder ? true : nil
        size = version.size
        package = version.isPackage
        resolves = version.resolves.isEmpty ? nil : version.resolves
        replaces = version.replaces
        name = document.flatMap { version.document == $0 ? nil : version.document.value }
        renamedFrom = version.renamedFrom?.value
        renamedTo = version.renamedTo?.value
    }
}

/// A resolution as `resolve --json` prints it (and `sync --json` for those its rules made).
struct ResolveJSON: Encodable {
    var document: String
    var kept: VersionJSON?
    var removed: [VersionJSON]
    var explanation: String
    var policy: String?
    var deleted: Bool
    var version: String?
    var warnings: [String]
    var savedBeside: [String: String]?
    var dryRun: Bool

    init(_ report: ResolveReport, dryRun: Bool) {
        document = report.document.value
        kept = report.kept.map { VersionJSON($0, of: report.document) }
        removed = report.removed.map { VersionJSON($0, of: report.document) }
        explanation = report.explanation
        policy = report.policy
        deleted = report.isDeletion
        version = report.version
        warnings = report.clockWarnings
        savedBeside = report.savedBeside.isEmpty ? nil : report.savedBeside.mapValues(\.value)
        self.dryRun = dryRun
    }
}
