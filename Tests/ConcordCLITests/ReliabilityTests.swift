import Foundation
import Testing

@Suite struct ReliabilityTests {
    /// Holds the container's lock from another process (util-linux flock) until the returned
    /// pipe is closed (`flock -o LOCK cat`: cat ends at the end of its input, and flock with it).
    func holdLock(_ container: String) throws -> (process: Process, release: FileHandle) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        process.arguments = ["-o", "\(container)/.git/concord/lock", "cat"]
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let held = eventually(30) {
            let descriptor = open("\(container)/.git/concord/lock", O_RDONLY)
            defer { if descriptor >= 0 { close(descriptor) } }
            return descriptor >= 0 && flock(descriptor, LOCK_SH | LOCK_NB) != 0
        }
        #expect(held, "flock never took the lock")
        return (process, input.fileHandleForWriting)
    }

    /// A writer holding the container alone (another process's sync, here util-linux flock)
    /// disables no editing; a write waiting behind it does, while it waits: readers see
    /// `editingDisabled` then, and `normal` once the waiting write gave up.
    @Test func aWriterFindingTheContainerHeldWaitsThenSaysBusyWhileReadersGoOn() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "dev", "--device", "D"])
        try cli.ok(["-C", "dev", "save", "a.txt"], input: "a\n")
        let holder = try holdLock("\(cli.folder)/dev")
        defer {
            try? holder.release.close()
            holder.process.waitUntilExit()
        }
        let before = try cli.tree("dev")
        func state() throws -> String? { try cli.json(["-C", "dev", "ls", "--json"]).first?["state"] as? String }
        #expect(try state() == "normal")
        try cli.write("waiting.txt", "b\n")
        let started = Date()
        let waiting = try ChildProcess(
            [CLI.binary, "-C", "\(cli.folder)/dev", "save", "a.txt", "--file", "\(cli.folder)/waiting.txt"],
            environment: ["CONCORD_LOCK_TIMEOUT": "10"], stdout: "\(cli.folder)/waiting.out", stderr: "\(cli.folder)/waiting.err")
        #expect(try eventually(10) { try state() == "editingDisabled" }, "ls never said editingDisabled while a save waited")
        let status = waiting.exitStatus(within: 60)
        #expect(status == 1)
        #expect(cli.file("waiting.err")?.contains("container busy") == true)
        #expect(Date().timeIntervalSince(started) >= 10)
        #expect(try state() == "normal")
        #expect(try cli.tree("dev") == before)
        #expect(try cli.ok(["-C", "dev", "show", "a.txt"]) == "a\n")
    }

    /// Four devices push at once; each retries when the cloud moved. After a few syncs every
    /// version has landed and all devices agree.
    @Test func devicesRacingOnOneCloudAllLand() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "d0", "--device", "d0", "--remote", "cloud.git"])
        for index in 1..<4 { try cli.ok(["clone", "cloud.git", "d\(index)", "--device", "d\(index)"]) }
        for index in 0..<4 { try cli.ok(["-C", "d\(index)", "save", "own\(index).txt"], input: "from d\(index)\n") }
        let racers = try (0..<4).map { index -> Process in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: CLI.binary)
            process.arguments = ["-C", "\(cli.folder)/d\(index)", "sync"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            return process
        }
        racers.forEach { $0.waitUntilExit() }
        for _ in 0..<2 {
            for index in 0..<4 { try cli.ok(["-C", "d\(index)", "sync"]) }
        }
        let trees = try (0..<4).map { try cli.tree("d\($0)") }
        #expect(Set(trees).count == 1)
        for index in 0..<4 {
            #expect(try cli.ok(["-C", "d0", "show", "own\(index).txt"]) == "from d\(index)\n")
        }
    }

    @Test func aCloudPasswordIsNeverPrinted() throws {
        let cli = try CLI()
        defer { cli.remove() }
        let result = try cli.run(["clone", "http://user:s3cret@127.0.0.1:9/cloud.git", "dev"])
        #expect(result.status == 1)
        #expect(!result.stderr.contains("s3cret") && !result.stdout.contains("s3cret"))
        // The password leaves the URL before anything is written or printed: the message names
        // the cloud by its URL without user information.
        #expect(result.stderr.contains("the cloud http://127.0.0.1:9/cloud.git:"), "\(result.stderr)")
    }

    @Test func aTruncatedObjectOrACorruptRefIsAClearErrorNotAHang() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "dev", "--device", "D"])
        try cli.ok(["-C", "dev", "save", "a.txt"], input: "hello\n")
        let blob = try cli.git(["rev-parse", "main:a.txt"], in: "dev")
        // Concord packs what it writes; git and Concord before it left loose objects. Unpack them.
        let packs = "\(cli.folder)/dev/.git/objects/pack"
        for name in try FileManager.default.contentsOfDirectory(atPath: packs) where name.hasSuffix(".pack") {
            let moved = "\(cli.folder)/\(name)"
            try FileManager.default.moveItem(atPath: "\(packs)/\(name)", toPath: moved)
            try FileManager.default.removeItem(atPath: "\(packs)/\(name.dropLast(".pack".count)).idx")
            let unpack = Process()
            unpack.executableURL = URL(fileURLWithPath: "/usr/bin/git")
            unpack.arguments = ["-C", "\(cli.folder)/dev", "unpack-objects", "-q"]
            unpack.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: moved))
            try unpack.run()
            unpack.waitUntilExit()
            #expect(unpack.terminationStatus == 0)
        }
        let object = "\(cli.folder)/dev/.git/objects/\(blob.prefix(2))/\(blob.dropFirst(2))"
        let bytes = try Data(contentsOf: URL(fileURLWithPath: object))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: object)
        try bytes.prefix(10).write(to: URL(fileURLWithPath: object))
        let shown = try cli.run(["-C", "dev", "show", "a.txt"])
        #expect(shown.status == 1)
        #expect(shown.stderr.contains("\(blob) is damaged"))
        let main = "\(cli.folder)/dev/.git/refs/heads/main"
        let before = try String(contentsOfFile: main, encoding: .utf8)
        try "garbage\n".write(toFile: main, atomically: true, encoding: .utf8)
        let saved = try cli.run(["-C", "dev", "save", "b.txt"], input: "b\n")
        #expect(saved.status == 1)
        #expect(saved.stderr.contains("refs/heads/main"))
        #expect(try String(contentsOfFile: main, encoding: .utf8) == "garbage\n")
        #expect(!before.isEmpty)
    }

    /// A container whose configuration and attributes ask for hooks, filters and merge drivers:
    /// none of them ever runs.
    @Test func hooksFiltersAndDriversFromAContainerNeverRun() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "one", "--device", "one", "--remote", "cloud.git"])
        let marker = "\(cli.folder)/pwned"
        let evil = "\(cli.folder)/evil.sh"
        try "#!/bin/sh\ntouch \(marker)\ncat\n".write(toFile: evil, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: evil)
        let config = "\(cli.folder)/one/.git/config"
        let extra = "[core]\n\thooksPath = \(cli.folder)/hooks\n[filter \"evil\"]\n\tclean = \(evil)\n\tsmudge = \(evil)\n[merge \"evil\"]\n\tdriver = \(evil)\n"
        try (String(contentsOfFile: config, encoding: .utf8) + extra).write(toFile: config, atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: "\(cli.folder)/hooks", withIntermediateDirectories: true)
        for hook in ["pre-commit", "post-commit", "pre-push", "post-checkout", "post-merge"] {
            try FileManager.default.copyItem(atPath: evil, toPath: "\(cli.folder)/hooks/\(hook)")
        }
        try cli.ok(["-C", "one", "save", ".gitattributes"], input: "* filter=evil merge=evil\n")
        try cli.ok(["-C", "one", "save", "a.txt"], input: "a\n")
        try cli.ok(["-C", "one", "sync"])
        try cli.ok(["clone", "cloud.git", "two", "--device", "two"])
        try cli.ok(["-C", "two", "save", "a.txt"], input: "two\n")
        try cli.ok(["-C", "one", "save", "a.txt"], input: "one\n")
        try cli.ok(["-C", "one", "sync"])
        try cli.ok(["-C", "two", "sync"])
        try cli.ok(["-C", "two", "resolve", "a.txt", "--latest"])
        #expect(!FileManager.default.fileExists(atPath: marker))
    }

    @Test func anEmptyDocumentIsADocument() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "dev", "--device", "D", "--remote", "cloud.git"])
        try cli.ok(["-C", "dev", "save", "empty.txt"], input: "")
        #expect(try cli.ok(["-C", "dev", "show", "empty.txt"]) == "")
        try cli.ok(["-C", "dev", "sync"])
        let versions = try cli.json(["-C", "dev", "versions", "empty.txt", "--json"])
        #expect(versions.first?["size"] as? Int == 0)
        #expect(versions.first?["deleted"] as? Bool == false)
    }
}
