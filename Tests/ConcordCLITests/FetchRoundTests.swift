import Foundation
import Testing

/// A sync fetches what the cloud gained in one request to upload-pack, however many versions the
/// device saved offline, against lighttpd + `git http-backend` on 127.0.0.1 (device B reaches it
/// through a ``ConnectionProxy``, which counts the bytes it receives and names its connections in
/// the server's log).
@Suite struct FetchRoundTests {
    /// B saved 300 versions offline, more than the 256 commits libgit2's own fetch names before
    /// giving up, and A sent one edit. B's sync asks upload-pack once and receives about that
    /// edit, not the 300 KB history of documents that do not compress. Seen failing with no
    /// commit named as this side's: the history came again (over 300 KB).
    @Test func aSyncAfterManyOfflineSavesFetchesWhatTheCloudGainedInOneRequest() throws {
        let (cli, server) = try CloudTesting.httpsFixture()
        defer { server.stop(); cli.remove() }
        let proxy = try ConnectionProxy(to: server.port)
        defer { proxy.stop() }
        let url = server.url("cloud.git", userInfo: "alice:s3cret-pass")
        try cli.ok(["init", "a", "--device", "A", "--remote", url])
        var generator = SystemRandomNumberGenerator()
        for number in 0..<30 {
            let bytes = (0..<10_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
            try Data(bytes).write(to: URL(fileURLWithPath: "\(cli.folder)/a/photo\(number).bin"))
        }
        try cli.ok(["-C", "a", "save", "--all"])
        try cli.ok(["-C", "a", "sync"])
        try cli.ok(["clone", server.url("cloud.git", userInfo: "alice:s3cret-pass", port: proxy.port), "b", "--device", "B"])
        for number in 1...300 {
            try cli.ok(["-C", "b", "save", "diary.txt"], input: "entry \(number)\n")
        }
        try cli.ok(["-C", "a", "save", "shopping.txt"], input: "bread\n")
        try cli.ok(["-C", "a", "sync"])

        let before = proxy.received
        try cli.ok(["-C", "b", "sync"])
        let received = proxy.received - before
        #expect(cli.file("b/shopping.txt") == "bread\n")
        #expect(received < 60_000, "the sync received \(received) bytes")

        // B's requests, as the server logged them: its clone's and its sync's (the last, a push).
        let ports = proxy.serverSidePorts
        var requests: [HTTPSServer.Request] = []
        let logged = eventually(20) {
            requests = server.accessLog().filter { ports.contains($0.port) }
            return requests.contains { $0.line.hasPrefix("POST") && $0.line.contains("git-receive-pack") }
        }
        #expect(logged, "\(requests.map(\.line))")
        let fetches = requests.filter { $0.line.hasPrefix("POST") && $0.line.contains("git-upload-pack") }
        #expect(fetches.count == 2, "upload-pack requests of the clone and the sync: \(fetches.map(\.line))")
    }
}
