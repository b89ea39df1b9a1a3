import Foundation
import Testing

/// A push to a network cloud is a compare-and-swap of the cloud's main from what the sync
/// fetched: devices that sync at the same moment through a real `git daemon` never overwrite
/// each other's versions (the one that finds the cloud moved fetches, integrates and tries again).
@Suite struct NetworkPushTests {
    @Test func devicesSyncingAtOnceLoseNothing() throws {
        let (cli, daemon) = try CloudTesting.daemonFixture()
        defer { cli.remove() }
        defer { daemon.stop() }
        let url = daemon.url("cloud.git")
        try cli.ok(["init", "a", "--device", "A", "--remote", url])
        for device in ["b", "c"] { try cli.ok(["clone", url, device, "--device", device.uppercased()]) }
        let devices = ["a", "b", "c"]
        for round in 0..<6 {
            for device in devices { try cli.ok(["-C", device, "save", "\(device)-\(round).txt"], input: "\(device) \(round)\n") }
            let statuses = SharedValue([Int32]())
            DispatchQueue.concurrentPerform(iterations: devices.count) { index in
                let status = (try? cli.run(["-C", devices[index], "sync"]).status) ?? -1
                statuses.withLock { $0.append(status) }
            }
            #expect(statuses.withLock { $0 } == [0, 0, 0], "round \(round)")
            // A sync that succeeded left its device's versions in the cloud: a push that found
            // the cloud moved fetched and integrated again, it never replaced another's.
            let cloud = try runTool("/usr/bin/git", ["-C", "\(cli.folder)/cloud.git", "ls-tree", "-r", "--name-only", "main"])
            for device in devices {
                for earlier in 0...round { #expect(cloud.contains("\(device)-\(earlier).txt"), "\(device)-\(earlier).txt is in the cloud") }
            }
        }
        for device in devices { try cli.ok(["-C", device, "sync"]) }
        for device in devices { try cli.ok(["-C", device, "sync"]) }
        #expect(try cli.tree("a") == cli.tree("b") && cli.tree("b") == cli.tree("c"))
        #expect(try runTool("/usr/bin/git", ["-C", "\(cli.folder)/cloud.git", "fsck", "--no-progress"]).isEmpty)
    }
}

/// A value shared by concurrent closures, one at a time.
final class SharedValue<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    init(_ value: Value) { self.value = value }

    func withLock<T>(_ body: (inout Value) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
