import Foundation

/// An attacker who can write to a cloud (a bare repository): crafts objects byte by byte with
/// git plumbing (`hash-object --literally`), so that trees can hold any name and mode, and
/// moves the cloud's `main` to them.
struct HostileCloud {
    /// One entry of a crafted tree.
    struct Entry {
        var mode: String
        var name: [UInt8]
        var id: String

        init(_ mode: String, _ name: String, _ id: String) {
            self.init(mode, bytes: Array(name.utf8), id)
        }

        init(_ mode: String, bytes name: [UInt8], _ id: String) {
            self.mode = mode
            self.name = name
            self.id = id
        }

        var isTree: Bool { mode == "40000" }
    }

    /// The bare repository's path.
    let path: String

    /// Runs git in the cloud with `input` on stdin; returns its trimmed stdout.
    @discardableResult
    func git(_ arguments: [String], input: Data = Data(), environment: [String: String] = [:]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/git")
        process.arguments = ["-C", path] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(input)
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        let errors = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw HostileCloudError(message: "git \(arguments.joined(separator: " ")): \(String(decoding: errors, as: UTF8.self))")
        }
        return String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Writes a blob.
    func blob(_ content: String) throws -> String { try blob(Data(content.utf8)) }

    /// Writes a blob of raw bytes.
    func blob(_ content: Data) throws -> String {
        try git(["hash-object", "-w", "--stdin"], input: content)
    }

    /// Writes a tree holding exactly `entries`; sorted in git's order unless `sorted` is false.
    func tree(_ entries: [Entry], sorted: Bool = true) throws -> String {
        let ordered = sorted ? entries.sorted { Self.sortKey($0).lexicographicallyPrecedes(Self.sortKey($1)) } : entries
        var data = Data()
        for entry in ordered {
            data.append(contentsOf: Array(entry.mode.utf8) + [0x20] + entry.name + [0])
            data.append(Self.bytes(ofHex: entry.id))
        }
        return try git(["hash-object", "-t", "tree", "--literally", "-w", "--stdin"], input: data)
    }

    /// Writes a commit; `time` is the author and committer time in seconds.
    func commit(tree: String, parents: [String], message: String = "hostile commit\n", time: String = "1800000000", author: String = "Mallory") throws -> String {
        var text = "tree \(tree)\n"
        for parent in parents { text += "parent \(parent)\n" }
        text += "author \(author) <mallory@example.invalid> \(time) +0000\n"
        text += "committer \(author) <mallory@example.invalid> \(time) +0000\n\n\(message)"
        return try git(["hash-object", "-t", "commit", "--literally", "-w", "--stdin"], input: Data(text.utf8))
    }

    /// The entries of a tree, as stored.
    func entries(of tree: String) throws -> [Entry] {
        let listing = try git(["ls-tree", "-z", tree])
        return listing.split(separator: "\0").map { line in
            let tab = line.firstIndex(of: "\t")!
            let fields = line[..<tab].split(separator: " ")
            return Entry(fields[0] == "040000" ? "40000" : String(fields[0]), String(line[line.index(after: tab)...]), String(fields[2]))
        }
    }

    /// The commit `main` points at.
    func main() throws -> String { try git(["rev-parse", "main"]) }

    /// Moves `main` to a new commit whose root tree is main's with `extra` entries added (an
    /// entry of the same name replaced); returns the commit.
    @discardableResult
    func push(adding extra: [Entry], time: String = "1800000000", message: String = "hostile commit\n", author: String = "Mallory") throws -> String {
        let parent = try main()
        let names = Set(extra.map(\.name))
        let root = try tree(entries(of: "\(parent)^{tree}").filter { !names.contains($0.name) } + extra)
        let commit = try commit(tree: root, parents: [parent], message: message, time: time, author: author)
        try setMain(commit)
        return commit
    }

    /// Points the cloud's `main` at `commit` (repairs the cloud when given the commit before an attack).
    func setMain(_ commit: String) throws {
        try git(["update-ref", "refs/heads/main", commit])
    }

    /// Writes `content` as an object of `type` without any check (`hash-object --literally`):
    /// a commit git itself would not write.
    func rawObject(_ type: String, _ content: String) throws -> String {
        try git(["hash-object", "-w", "--literally", "-t", type, "--stdin"], input: Data(content.utf8))
    }

    /// Points the cloud's `main` at `object` by writing the reference file, which git's
    /// `update-ref` would refuse for an object that is not a valid commit.
    func forceMain(_ object: String) throws {
        try Data("\(object)\n".utf8).write(to: URL(fileURLWithPath: "\(path)/refs/heads/main"))
    }

    /// Moves `object` from its loose file into a pack of its own whose index lists it under
    /// `id` instead: the entry holds what `object` holds, and a reader that does not hash what
    /// it reads takes it for `id`.
    func packForged(_ object: String, as id: String) throws {
        let name = try git(["pack-objects", "objects/pack/pack"], input: Data("\(object)\n".utf8))
        let index = "\(path)/objects/pack/pack-\(name).idx"
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: index)))
        let forged = [UInt8](Self.bytes(ofHex: id))
        for first in 0..<256 {
            let below = first >= Int(forged[0]) ? 1 : 0
            bytes.replaceSubrange((8 + first * 4)..<(12 + first * 4), with: [0, 0, 0, UInt8(below)])
        }
        bytes.replaceSubrange((8 + 256 * 4)..<(8 + 256 * 4 + 20), with: forged)
        try Data(bytes).write(to: URL(fileURLWithPath: index + ".new"))
        try FileManager.default.removeItem(atPath: index)
        try FileManager.default.moveItem(atPath: index + ".new", toPath: index)
        try removeLoose(object)
    }

    /// Removes the loose file of `object`.
    func removeLoose(_ object: String) throws {
        try FileManager.default.removeItem(atPath: "\(path)/objects/\(object.prefix(2))/\(object.dropFirst(2))")
    }

    private static func sortKey(_ entry: Entry) -> [UInt8] { entry.isTree ? entry.name + [0x2F] : entry.name }

    private static func bytes(ofHex hex: String) -> Data {
        var data = Data()
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            data.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return data
    }
}

struct HostileCloudError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
