import Foundation
import Testing

@Suite struct ReliabilityTests {
    /// Holds the container's lock from another process (util-linux flock) for `seconds`.
    func holdLock(_ container: String, seconds: Int) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        process.arguments = ["\(container)/.git/concord/lock", "sleep", "\(seconds)"]
        try process.run()
        usleep(300_000)
        return process
    }

    @Test func aWriterFindingTheContainerHeldWaitsThenSaysBusyWhileReadersGoOn() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "dev", "--device", "D"])
        try cli.ok(["-C", "dev", "save", "a.txt"], input: "a\n")
        let holder = try holdLock("\(cli.folder)/dev", seconds: 4)
        defer { holder.terminate(); holder.waitUntilExit() }
        let before = try cli.tree("dev")
        let started = Date()
        let busy = try cli.run(["-C", "dev", "save", "a.txt"], input: "b\n", environment: ["CONCORD_LOCK_TIMEOUT": "1"])
        #expect(busy.status == 1)
        #expect(busy.stderr.contains("container busy"))
        #expect(Date().timeIntervalSince(started) >= 1)
        #expect(try cli.tree("dev") == before)
        let listing = try cli.json(["-C", "dev", "ls", "--json"])
        #expect(listing.first?["state"] as? String == "editingDisabled")
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
        #expect(result.stderr.contains("user:***@"))
    }
}
