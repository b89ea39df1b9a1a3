import Foundation
import Testing

/// One file-size limit for the container (`.concord/limits`, `concord limits`): raised on one
/// device, it reaches every other device and a new device's clone, over a local cloud and over
/// the network, and no device jams on a file the container allows.
@Suite struct LimitsTests {
    /// A file of `size` bytes of text.
    static func file(_ size: Int) -> String { String(repeating: "x", count: size - 1) + "\n" }

    @Test(arguments: ["local", "daemon"])
    func aLimitRaisedOnOneDeviceReachesTheOthersAndNewClones(cloud: String) throws {
        let cli = try CLI()
        defer { cli.remove() }
        var daemon: GitDaemon?
        defer { daemon?.stop() }
        var url = "cloud.git"
        if cloud == "daemon" {
            try CloudTesting.makeBare("\(cli.folder)/cloud.git")
            daemon = try GitDaemon(base: cli.folder)
            url = daemon!.url("cloud.git")
        }
        try cli.ok(["init", "a", "--device", "A", "--remote", url])
        try cli.ok(["-C", "a", "limits", "--file-size", "4k"])
        try cli.ok(["-C", "a", "sync"])
        try cli.ok(["clone", url, "b", "--device", "B"])
        #expect(try cli.ok(["-C", "b", "limits"]).contains("file-size 4 KB"))

        let refused = try cli.run(["-C", "b", "save", "big.txt"], input: Self.file(6000))
        #expect(refused.status == 1 && refused.stderr.contains("over the container's limit of 4 KB"), "\(refused.stderr)")
        #expect(refused.stderr.contains("'concord limits --file-size 1m' raises it for every device"), "\(refused.stderr)")

        try cli.ok(["-C", "a", "limits", "--file-size", "8k"])
        try cli.ok(["-C", "a", "save", "big.txt"], input: Self.file(6000))
        try cli.ok(["-C", "a", "sync"])
        // b's own main still says 4 KB: the commits that arrive raise it with the file.
        try cli.ok(["-C", "b", "sync"])
        #expect(try cli.ok(["-C", "b", "show", "big.txt"]) == Self.file(6000))
        try cli.ok(["-C", "b", "save", "other.txt"], input: Self.file(7000))
        try cli.ok(["-C", "b", "sync"])
        try cli.ok(["clone", url, "c", "--device", "C"])
        #expect(try cli.ok(["-C", "c", "show", "other.txt"]) == Self.file(7000))
        let limits = try JSONSerialization.jsonObject(with: Data(try cli.ok(["-C", "c", "limits", "--json"]).utf8)) as? [String: Any]
        #expect(limits?["containerFileSize"] as? Int == 8192 && limits?["fileSize"] as? Int == 8192 && limits?["fixedByDevice"] as? Bool == false)
    }

    @Test func aDevicesOwnSettingHoldsItToLessAndSaysSo() throws {
        let cli = try CLI()
        defer { cli.remove() }
        try cli.ok(["init", "a", "--device", "A", "--remote", "cloud.git"])
        try cli.ok(["-C", "a", "limits", "--file-size", "8k"])
        try cli.ok(["-C", "a", "save", "big.txt"], input: Self.file(6000))
        try cli.ok(["-C", "a", "sync"])
        try cli.ok(["clone", "cloud.git", "b", "--device", "B"])
        try cli.git(["config", "concord.maxObjectSize", "2k"], in: "b")
        try cli.ok(["-C", "a", "save", "big.txt"], input: Self.file(5000))
        try cli.ok(["-C", "a", "sync"])
        let sync = try cli.run(["-C", "b", "sync"])
        #expect(sync.status == 1 && sync.stderr.contains("over the limit of 2 KB") && sync.stderr.contains("this device's own limit"), "\(sync.stderr)")
        #expect(try cli.ok(["-C", "b", "limits"]).contains("this device: 2 KB, its own setting"))
        let bad = try cli.run(["-C", "a", "limits", "--file-size", "lots"])
        #expect(bad.status != 0 && bad.stderr.contains("invalid size 'lots'"), "\(bad.stderr)")
        let tiny = try cli.run(["-C", "a", "limits", "--file-size", "10"])
        #expect(tiny.status == 1 && tiny.stderr.contains("out of range"), "\(tiny.stderr)")
    }
}
