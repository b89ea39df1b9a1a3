import Concord
import ConcordMerge
import Foundation

/// Printing results and failures the same way in every subcommand.
enum Output {
    /// Prints one line of a command's report on stdout, its control characters escaped (names
    /// and device names come from the cloud). Document contents are written as they are.
    static func line(_ text: String) {
        print(TerminalText.escaped(text))
    }

    /// Prints lines as ``line(_:)`` prints each, in one write: a table of a thousand rows.
    static func lines(_ texts: some Sequence<String>) {
        var text = ""
        for line in texts {
            text += TerminalText.escaped(line)
            text += "\n"
        }
        print(text, terminator: "")
    }

    /// `text` followed by spaces up to `width` characters, and by one at least: a column of a
    /// table, never cut short. (Foundation's `padding(toLength:withPad:startingAt:)` cuts, and
    /// went through NSString: 13.6 M of a 1,000-document `ls`'s 46 M instructions.)
    static func column(_ text: String, width: Int) -> String {
        let length = text.utf8.allSatisfy { $0 < 0x80 } ? text.utf8.count : text.count
        let count = max(1, width - length)
        return text + (count < paddings.count ? paddings[count] : String(repeating: " ", count: count))
    }

    /// Padding for ``column(_:width:)``, made once: `String(repeating:count:)` costs 1,200
    /// instructions a call, and appending a `Substring` counts the characters of the string.
    private static let paddings = (0..<64).map { String(repeating: " ", count: $0) }

    /// Prints one line on stderr, its control characters escaped: names from the cloud can never
    /// fake a line or drive the terminal.
    static func printError(_ line: String) {
        FileHandle.standardError.write(Data((TerminalText.escaped(line) + "\n").utf8))
    }

    /// Prints a value as one JSON document on stdout.
    static func json<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        let data = try encoder.encode(value)
        FileHandle.standardOutput.write(data)
        FileHandle.standardOutput.write(Data("\n".utf8))
    }

    /// Reads a whole file, or standard input for `-`: any readable file, pipe or device
    /// (`/dev/null`, `/dev/stdin`, a shell's `<(command)`), read as a stream until its end.
    static func read(_ path: String, relativeTo options: GlobalOptions) throws -> Data {
        if path == "-" { return FileHandle.standardInput.readDataToEndOfFile() }
        let full = options.resolvePath(path)
        let descriptor = open(full, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ConcordError.io(path, reason: "cannot be read: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var info = stat()
        if fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            throw ConcordError.io(path, reason: "is a folder: give a file")
        }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress, $0.count) }
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
